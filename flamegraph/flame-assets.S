/* SPDX-License-Identifier: GPL-2.0 */
/* The page's script and style sheet, built into ustack-flame (flame-page.c). */
	.section .rodata
	.globl	flame_js, flame_js_end, flame_css, flame_css_end
flame_js:
	.incbin	"flame.js"
flame_js_end:
flame_css:
	.incbin	"flame.css"
flame_css_end:
	.section .note.GNU-stack,"",@progbits

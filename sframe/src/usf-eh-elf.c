// SPDX-License-Identifier: LGPL-2.1
/*
 * The ELF side of the .eh_frame converter: libdw's CFI of the file
 * (.eh_frame, or .debug_frame when there is none), the list of FDE ranges,
 * and the PT_LOAD headers that map addresses to file offsets.
 *
 * libdw finds the rules at an address but does not list the FDEs:
 * dwarf_next_cfi() walks the entries and leaves the FDE's address range
 * encoded as its CIE says (augmentation 'R', the pointer encoding of the
 * x86-64 psABI / LSB), which is decoded here.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>

#include "usf-eh-local.h"

/* Read one encoded pointer: format (low 4 bits) and, with @field, pc-relative application */
static bool usf_eh_read(const uint8_t **pp, const uint8_t *end, uint8_t enc, uint64_t field,
			uint64_t *val)
{
	const uint8_t *p = *pp;
	unsigned int size, shift = 0;
	uint64_t v = 0;
	uint8_t b;

	switch (enc & 0x0f) {
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		do {
			if (p >= end || shift > 63)
				return false;
			b = *p++;
			v |= (uint64_t)(b & 0x7f) << shift;
			shift += 7;
		} while (b & 0x80);
		if ((enc & 0x0f) == DW_EH_PE_sleb128 && shift < 64 && (b & 0x40))
			v |= ~0ULL << shift;
		size = 0;
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		size = 2;
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		size = 4;
		break;
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		size = 8;
		break;
	default:
		return false;
	}
	if (size) {
		if (end - p < size)
			return false;
		for (shift = 0; shift < size; shift++)
			v |= (uint64_t)p[shift] << (8 * shift);
		if ((enc & DW_EH_PE_signed) && size < 8 && (v >> (8 * size - 1)) & 1)
			v |= ~0ULL << (8 * size);
		p += size;
	}
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		if (!field)
			return false;
		v += field;
		break;
	default:
		return false;		/* never seen in FDE addresses */
	}
	*val = v;
	*pp = p;
	return true;
}

/* The FDE pointer encoding of a .eh_frame CIE: its 'R' augmentation */
static bool usf_eh_cie_enc(const Dwarf_CIE *cie, uint8_t *enc)
{
	const uint8_t *p = cie->augmentation_data, *end = p + cie->augmentation_data_size;
	const char *a = cie->augmentation;
	uint64_t skip;

	*enc = DW_EH_PE_absptr;
	if (a[0] != 'z')
		return !a[0];
	for (a++; *a; a++) {
		if (*a == 'R') {
			if (p >= end)
				return false;
			*enc = *p;
			return true;
		} else if (*a == 'P') {
			/* personality: an encoding byte, then a pointer in it */
			if (p >= end)
				return false;
			p++;
			if (!usf_eh_read(&p, end, p[-1] & 0x0f, 0, &skip))
				return false;
		} else if (*a == 'L') {
			p++;
		} else if (*a != 'S' && *a != 'B' && *a != 'G') {
			return false;
		}
	}
	return true;
}

static int usf_eh_fde_cmp(const void *a, const void *b)
{
	const struct usf_eh_fde *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* Every FDE of @data (the section at @addr) */
static int usf_eh_list(Elf *elf, Elf_Data *data, uint64_t addr, bool eh, struct usf_eh_elf *ee)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	Dwarf_Off off = 0, next, cie_off = -1;
	uint8_t enc = DW_EH_PE_absptr;
	Dwarf_CFI_Entry e, cie;
	uint32_t cap = 0;
	int ret;

	while ((ret = dwarf_next_cfi(ident, data, eh, off, &next, &e)) == 0) {
		const uint8_t *p, *end = (const uint8_t *)data->d_buf + data->d_size;
		uint64_t start, len;

		off = next;
		if (dwarf_cfi_cie_p(&e))
			continue;
		if (eh && e.fde.CIE_pointer != cie_off) {
			if (dwarf_next_cfi(ident, data, eh, e.fde.CIE_pointer, &next, &cie) ||
			    !dwarf_cfi_cie_p(&cie) || !usf_eh_cie_enc(&cie.cie, &enc))
				return usf_error(EINVAL, "CIE at %#llx: unreadable or unknown "
						 "augmentation", (unsigned long long)e.fde.CIE_pointer);
			cie_off = e.fde.CIE_pointer;
		}
		p = e.fde.start;
		if (!usf_eh_read(&p, end, enc, addr + (p - (const uint8_t *)data->d_buf),
				 &start) ||
		    !usf_eh_read(&p, end, enc & 0x0f, 0, &len))
			return usf_error(EINVAL, "FDE before %#llx: unreadable address range",
					 (unsigned long long)off);
		if (ee->nr_fdes == cap) {
			struct usf_eh_fde *n;

			cap = cap ? cap * 2 : 256;
			n = realloc(ee->fdes, cap * sizeof(*n));
			if (!n)
				return usf_error(ENOMEM, "out of memory for %u FDEs", cap);
			ee->fdes = n;
		}
		ee->fdes[ee->nr_fdes++] = (struct usf_eh_fde){ start, start + len };
	}
	if (ret < 0)
		return usf_error(EINVAL, "CFI entry at %#llx: %s", (unsigned long long)off,
				 dwarf_errmsg(-1));
	if (ee->nr_fdes > 1)
		qsort(ee->fdes, ee->nr_fdes, sizeof(*ee->fdes), usf_eh_fde_cmp);
	return 0;
}

static Elf_Scn *usf_eh_scn(Elf *elf, const char *want, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t strndx;

	if (elf_getshdrstrndx(elf, &strndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, shdr) || shdr->sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, strndx, shdr->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

static int usf_eh_loads(Elf *elf, struct usf_eh_elf *ee)
{
	size_t n, i;

	if (elf_getphdrnum(elf, &n))
		return usf_error(EINVAL, "no program headers: %s", elf_errmsg(-1));
	ee->loads = calloc(n ? n : 1, sizeof(*ee->loads));
	if (!ee->loads)
		return usf_error(ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		GElf_Phdr *ph = &ee->loads[ee->nr_loads];

		if (gelf_getphdr(elf, i, ph) && ph->p_type == PT_LOAD && ph->p_filesz)
			ee->nr_loads++;
	}
	return 0;
}

/**
 * usf_eh_elf_open - the CFI, FDE list and PT_LOAD map of an x86-64 ELF file
 * @elf: the file
 * @flags: USF_EH_DEBUG_FRAME: .debug_frame even when there is .eh_frame
 * @ee: filled; usf_eh_elf_close() frees it, also after a failure
 * @stats: its source, cfi_size and hdr_size are set
 *
 * Return: 0, or -1 with errno and usf_last_error().
 */
int usf_eh_elf_open(Elf *elf, unsigned int flags, struct usf_eh_elf *ee,
		    struct usf_eh_stats *stats)
{
	GElf_Shdr shdr, hdr;
	GElf_Ehdr ehdr;
	Elf_Data *data;
	Elf_Scn *scn;
	bool eh;

	memset(ee, 0, sizeof(*ee));
	if (!gelf_getehdr(elf, &ehdr) || ehdr.e_machine != EM_X86_64 ||
	    ehdr.e_ident[EI_CLASS] != ELFCLASS64 || ehdr.e_ident[EI_DATA] != ELFDATA2LSB)
		return usf_error(EINVAL, "not an x86-64 ELF file");
	if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN)
		return usf_error(EINVAL, "not an executable or shared object (ELF type %u)",
				 ehdr.e_type);
	ee->entry = usf_eh_entry_point(elf, &ehdr);
	if (usf_eh_loads(elf, ee))
		return -1;
	scn = flags & USF_EH_DEBUG_FRAME ? NULL : usf_eh_scn(elf, ".eh_frame", &shdr);
	eh = scn != NULL;
	if (eh) {
		ee->cfi = dwarf_getcfi_elf(elf);
		if (usf_eh_scn(elf, ".eh_frame_hdr", &hdr))
			stats->hdr_size = hdr.sh_size;
	} else {
		scn = usf_eh_scn(elf, ".debug_frame", &shdr);
		if (!scn)
			return usf_error(ENOENT, "no .eh_frame and no .debug_frame");
		ee->dwarf = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		ee->cfi = ee->dwarf ? dwarf_getcfi(ee->dwarf) : NULL;
	}
	if (!ee->cfi)
		return usf_error(EINVAL, "libdw: no CFI: %s", dwarf_errmsg(-1));
	stats->source = eh ? ".eh_frame" : ".debug_frame";
	stats->cfi_size = shdr.sh_size;
	data = elf_getdata(scn, NULL);
	if (!data)
		return usf_error(EINVAL, "%s: %s", stats->source, elf_errmsg(-1));
	return usf_eh_list(elf, data, shdr.sh_addr, eh, ee);
}

/**
 * usf_eh_elf_close - free what usf_eh_elf_open() set up
 * @ee: the state
 */
void usf_eh_elf_close(struct usf_eh_elf *ee)
{
	if (ee->cfi && !ee->dwarf)
		dwarf_cfi_end(ee->cfi);
	if (ee->dwarf)
		dwarf_end(ee->dwarf);
	free(ee->fdes);
	free(ee->loads);
	memset(ee, 0, sizeof(*ee));
}

/**
 * usf_eh_elf_offset - the file offset of an address range
 * @ee: the state
 * @start: first address
 * @end: address after the range
 * @off: the file offset of @start
 *
 * Return: 0, or -1 when no PT_LOAD's file bytes hold the whole range.
 */
int usf_eh_elf_offset(const struct usf_eh_elf *ee, uint64_t start, uint64_t end,
		      uint64_t *off)
{
	uint32_t i;

	for (i = 0; i < ee->nr_loads; i++) {
		const GElf_Phdr *ph = &ee->loads[i];

		if (start >= ph->p_vaddr && end <= ph->p_vaddr + ph->p_filesz && start < end) {
			*off = start - ph->p_vaddr + ph->p_offset;
			return 0;
		}
	}
	return -1;
}

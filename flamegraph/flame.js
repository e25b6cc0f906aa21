// SPDX-License-Identifier: GPL-2.0
//
// ustack-flame's script, in the HTML page and in the SVG: a click on a
// frame zooms to it (it gets the whole width, its callers stay below it,
// dimmed, the rest is hidden); "Reset zoom" or a click on the root goes
// back. The page's search box marks the frames whose name matches a
// regular expression and says what share of the events they are. Either
// opens zoomed with "#zoom=NAME" (the widest frame of that name, clicked)
// and searched with "#search=REGEX". The SVG has no bar: no reset button,
// no search box. The SVG has this script in CDATA: the Makefile checks
// that nothing here ends that section or the page's script element.
(function () {
	'use strict';

	const svg = document.getElementById('flame');
	const x0 = Number(svg.dataset.x0);
	const width = Number(svg.dataset.gw);
	const charWidth = Number(svg.dataset.cw);
	const total = Number(svg.dataset.total);
	const details = document.getElementById('details');
	const reset = document.getElementById('reset');
	const search = document.getElementById('search');
	const matched = document.getElementById('matched');
	const frames = [];
	const byNode = new Map();

	for (const g of svg.querySelectorAll('g.f')) {
		const f = {
			g: g,
			rect: g.querySelector('rect'),
			text: g.querySelector('text'),
			name: g.dataset.n,
			start: Number(g.dataset.s),
			count: Number(g.dataset.c),
			depth: Number(g.dataset.d),
		};
		frames.push(f);
		byNode.set(g, f);
	}
	const root = frames.find((f) => f.depth === 0);

	function percent(count) {
		return (100 * count / total).toFixed(2) + '%';
	}

	// the name cut to what a box of w pixels holds
	function label(name, w) {
		const room = Math.floor((w - 6) / charWidth);
		const chars = Array.from(name);

		if (room < 3)
			return '';
		if (chars.length <= room)
			return name;
		return chars.slice(0, room - 2).join('') + '..';
	}

	function place(f, x, w) {
		f.g.style.display = '';
		f.rect.setAttribute('x', (x0 + x).toFixed(2));
		f.rect.setAttribute('width', (w > 1 ? w - 0.5 : w).toFixed(2));
		f.text.setAttribute('x', (x0 + x + 3).toFixed(2));
		f.text.textContent = label(f.name, w);
	}

	function zoom(z) {
		const end = z.start + z.count;

		for (const f of frames) {
			const inside = f.depth >= z.depth && f.start >= z.start &&
				f.start + f.count <= end;
			const below = f.depth < z.depth && f.start <= z.start &&
				f.start + f.count >= end;

			f.g.classList.toggle('anc', below);
			if (inside)
				place(f, (f.start - z.start) / z.count * width,
				      f.count / z.count * width);
			else if (below)
				place(f, 0, width);
			else
				f.g.style.display = 'none';
		}
		svg.dataset.zoom = z === root ? '' : z.name;
		if (reset)
			reset.disabled = z === root;
	}

	function frameOf(target) {
		const g = target.closest ? target.closest('g.f') : null;

		return g ? byNode.get(g) : null;
	}

	svg.addEventListener('click', (ev) => {
		const f = frameOf(ev.target);

		if (f)
			zoom(f);
	});
	svg.addEventListener('mouseover', (ev) => {
		const f = frameOf(ev.target);

		if (f)
			details.textContent = f.name + ': ' + f.count + ' events, ' +
				percent(f.count);
	});
	if (reset)
		reset.addEventListener('click', () => zoom(root));

	function regexp(text) {
		try {
			return new RegExp(text);
		} catch (e) {
			// not a regular expression: the text itself
			return new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
		}
	}

	// the share of the events under a matching frame, each event once
	function mark(text) {
		const re = text ? regexp(text) : null;
		const spans = [];
		let sum = 0, end = -1;

		for (const f of frames) {
			const hit = re !== null && f.depth > 0 && re.test(f.name);

			f.rect.classList.toggle('match', hit);
			if (hit)
				spans.push([f.start, f.start + f.count]);
		}
		spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
		for (const [s, e] of spans) {
			if (e <= end)
				continue;
			sum += e - Math.max(s, end);
			end = e;
		}
		if (matched)
			matched.textContent = re ? 'Matched: ' + percent(sum) : '';
		svg.dataset.matched = re ? String(sum) : '';
	}
	if (search)
		search.addEventListener('input', () => mark(search.value));

	// #zoom=NAME and #search=REGEX, for links and for tests
	function fromHash() {
		for (const part of location.hash.replace(/^#/, '').split('&')) {
			const eq = part.indexOf('=');
			const key = part.slice(0, eq);
			const value = decodeURIComponent(part.slice(eq + 1));

			if (key === 'zoom') {
				let best = null;

				for (const f of frames) {
					if (f.name === value && (!best || f.count > best.count))
						best = f;
				}
				if (best)
					best.rect.dispatchEvent(new MouseEvent('click',
						{ bubbles: true }));
			} else if (key === 'search') {
				if (search)
					search.value = value;
				mark(value);
			}
		}
	}
	zoom(root);
	fromHash();
	window.addEventListener('hashchange', fromHash);
})();

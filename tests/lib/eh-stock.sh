# SPDX-License-Identifier: GPL-2.0
# The work the stock programs of the eh-stock tests do (tests/guest/
# eh-stock.sh, with tables loaded by hand; tests/guest/eh-stock-serve.sh,
# with the tables service): their input files, and the scripts that give
# python3 and perl a deep call chain. Sourced after result.sh.

# The perl script: a 40-deep recursion, syswrite at its bottom, five times.
STOCK_PERL='sub f { my $n = shift; return $n ? f($n - 1) + 1 : syswrite(STDOUT, "x\n") } f(40) for 1..5'

# stock_inputs DIR: DIR/src (documentation to archive, compress and sort)
# and DIR/deep.py (the python script: a 40-deep recursion, os.write at its
# bottom, five times)
stock_inputs() {
	mkdir -p "$1/src"
	cp -r /usr/share/doc/tar /usr/share/doc/gzip /usr/share/doc/perl "$1/src/" 2>/dev/null
	cat > "$1/deep.py" <<'PY'
import os
def f(n):
    if n:
        return f(n - 1) + 1
    os.write(1, b"x\n")
    return 0
for i in range(5):
    f(40)
PY
}

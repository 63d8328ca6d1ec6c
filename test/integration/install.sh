#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `meson install` into a scratch destdir, as a user installs acis: the
# binaries, libacis with its headers and pkg-config file, libacis-mpi,
# the pipelines and examples (share/acis), the docs (share/doc/acis), the
# man pages and the systemd unit template; then a libacis program built
# from the installed files alone with the compile line README gives, and
# run with no switch to answer: a clean refusal naming it, no hang.
# Usage: install.sh BUILD_DIR
set -uo pipefail
BUILD=$1
D=$(mktemp -d /tmp/acis-install.XXXXXX)
trap 'rm -rf "$D"' EXIT
pass=0 fail=0
check() {
	local what=$1; shift
	if "$@"; then echo "ok   - $what"; pass=$((pass + 1))
	else echo "FAIL - $what"; fail=$((fail + 1)); fi
}

if ! meson install -C "$BUILD" --destdir "$D/root" --no-rebuild >"$D/install.log" 2>&1; then
	echo "FAIL - meson install"; tail -20 "$D/install.log"; exit 1
fi
opt() {
	meson introspect "$BUILD" --buildoptions |
		python3 -c "import json,sys; print([o['value'] for o in json.load(sys.stdin) if o['name'] == '$1'][0])"
}
P=$D/root$(opt prefix)
LIB=$P/$(opt libdir)
for f in bin/acis-switch bin/acisctl bin/acis-asm bin/acis-bench bin/acis-coll-check \
	bin/acis-fused share/acis/examples/cgra/fused/gmres_norm.s \
	bin/acis-fabric bin/acis-model share/acis/topologies/fat-tree.ini \
	include/acis/acis.h include/acis/acis_proto.h share/acis/pipelines/testbed-af_packet.ini \
	share/acis/examples/cgra/dot.s share/acis/examples/mpi/mpi_demo.c \
	share/doc/acis/mpi.md share/doc/acis/README.md share/acis/wireshark/acis.lua \
	lib/systemd/system/acis-switch@.service; do
	check "installed: $f" [ -e "$P/$f" ]
done
check "the installed acis-model runs: CusComNet's 1.16 us" \
	bash -c "'$P/bin/acis-model' cuscomnet --k 2 --bytes 64 --bl 1565 | grep -q '1.157'"
check "installed: libacis and its pkg-config file" \
	[ -e "$LIB/libacis.so" ] && [ -e "$LIB/pkgconfig/libacis.pc" ]
for m in man8/acis-switch.8 man8/acisctl.8 man1/acis-bench.1 man1/acis-fabric.1 \
	man1/acis-fused.1 man7/libacis-mpi.7; do
	check "installed: man page $m" [ -e "$P/share/man/$m" ]
done
unit=$P/lib/systemd/system/acis-switch@.service
check "the unit starts the installed switch on /etc/acis/%i.ini" \
	grep -q "^ExecStart=$(opt prefix)/$(opt bindir)/acis-switch .*--pipeline /etc/acis/%i.ini" "$unit"

# a libacis program, built as README says (sources before the flags)
cat >"$D/hello.c" <<'EOC'
#include <stdio.h>
#include <acis.h>
int main(void)
{
	struct acis_config cfg;
	acis_ctx_t *ctx;
	int rc;

	acis_config_default(&cfg); /* ACIS_SWITCH, ACIS_JOB, ... */
	rc = acis_init(&cfg, &ctx);
	if (rc != ACIS_OK) {
		printf("hello: %s\n", acis_strerror(rc));
		return 1;
	}
	acis_finalize(ctx);
	return 0;
}
EOC
flags=$(PKG_CONFIG_PATH=$LIB/pkgconfig pkg-config --define-variable=prefix="$P" --cflags --libs libacis)
# a sanitizer build's libacis needs the program built with it too
san=$(opt b_sanitize)
[ "$san" = none ] || flags+=" -fsanitize=$san"
check "a libacis program builds against the installed files ($flags)" \
	cc -O2 "$D/hello.c" $flags -Wl,-rpath,"$LIB" -o "$D/hello"
out=$(ACIS_SWITCH=127.0.0.1 ACIS_JOB=1 ACIS_RANK=0 ACIS_SIZE=2 ACIS_TIMEOUT_MS=300 \
	timeout 20 "$D/hello" 2>&1); rc=$?
check "it runs, and with no switch answering says so (exit $rc: ${out##*$'\n'})" \
	[ "$rc" -eq 1 ]

# the Python package, beside the Python that ran meson (Debian's)
pkg=$(find "$D/root" -path '*/acis/__init__.py' -printf '%h\n' | head -1)
check "installed: the Python package acis (${pkg#"$D/root"})" \
	[ -n "$pkg" ] && [ -e "$pkg/layer.py" ] && [ -e "$pkg/_installed.py" ]
if [ -n "$pkg" ] && [ "$san" = none ]; then
	# it names the installed libacis; here the destdir's copy stands in
	out=$(PYTHONPATH=$(dirname "$pkg") ACIS_LIB=$LIB/libacis.so /usr/bin/python3 -c '
import acis, acis.layer, acis._installed as i
print(i.LIBDIR, i.SONAME, acis.strerror(-4))' 2>&1); rc=$?
	check "it imports and loads libacis ($out)" \
		[ "$rc" -eq 0 ] && grep -q "^$(opt prefix)/$(opt libdir) libacis.so.0 " <<<"$out"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The peer agent's "run" request (collector/testbed/peer_agent.c): one program from an
# argv, no shell, and only one the peer testbed runs (ip, ethtool, iperf3
# and timeout --version, uname -r, printenv SSH_CONNECTION, and cat of the
# files the testbed reads, /proc/net/tcp, tcp6, /proc/stat, snmp and xfrm_stat, which the
# agent reads itself); its exit status and output in the answer, as ssh
# would give them. Every answer line fits what the run reads (64 KiB), measured as
# sent: output whose JSON escapes make it too long, output with a NUL or
# not UTF-8, a program past the agent's deadline are said, never sent
# half, and the answer says the program ran (the run then does not run it
# again through ssh). An argv it does not run is refused without running.
# The policy and SA requests of several SA pairs: a port below 1024, a
# priority or reqid past the run's, UDP, a port without a protocol, dir
# fwd, an SPI below 256 are refused, each naming its field; a policy in
# range is made in the agent's namespace and found by its port alone.
# Started for a key pinned to it, it serves what the run sends through ssh
# (SSH_ORIGINAL_COMMAND: an undo, a re-read) and refuses the rest, exit 4.
# The agent is started here on a pipe, as ssh starts it on the peer, with
# stand-ins for the programs first on its PATH.
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/bin"
# ethtool's stand-in: what it prints follows the device it is asked about
cat > "$TMP/bin/ethtool" << EOF
#!/bin/bash
dev=\$1
case \$1 in -i | -k | -K) dev=\$2 ;; esac
case "\$dev" in
status3) printf out; printf err >&2; exit 3 ;;
esc) head -c 12000 /dev/zero | tr '\\000' '\\033' ;;
ctl) head -c 20000 /dev/zero | tr '\\000' '\\001' ;;
quotes) head -c 24000 /dev/zero | tr '\\000' '"'; head -c 24000 /dev/zero | tr '\\000' '"' >&2 ;;
nul) printf 'abc\\000' ;;
binary) printf '\\377\\376' ;;
flood) exec yes ;;
hang) sleep 60 & echo \$! > "$TMP/hang.pid"; sleep 60 ;;
change) echo ran >> "$TMP/changes" ;;
esac
EOF
chmod +x "$TMP/bin/ethtool"
# cat's stand-in (apart: lib.sh may put $TMP/bin on the test's own PATH):
# the agent reads the testbed's files itself, and no other file
mkdir -p "$TMP/catbin"
cat > "$TMP/catbin/cat" << EOF
#!/bin/sh
echo "\$*" >> "$TMP/cat-ran"
exec /bin/cat "\$@"
EOF
chmod +x "$TMP/catbin/cat"

cat > "$TMP/req" << EOF
{"op":"run","argv":["ethtool","status3"]}
{"op":"run","argv":["ethtool","binary"]}
{"op":"run","argv":["ethtool","esc"]}
{"op":"run","argv":["ethtool","ctl"]}
{"op":"run","argv":["ethtool","quotes"]}
{"op":"run","argv":["ethtool","nul"]}
{"op":"run","argv":["ethtool","flood"]}
{"op":"run","argv":[]}
{"op":"run","argv":["echo",7]}
{"op":"run","argv":"echo hi"}
{"op":"run","argv":["sh","-c","touch $TMP/shell-ran"]}
{"op":"run","argv":["ip","netns","exec","x","touch","$TMP/shell-ran"]}
{"op":"run","argv":["cat","/proc/../$TMP/req"]}
{"op":"run","argv":["ethtool","-K","change","tso","off"]}
{"op":"run","argv":["printenv","SSH_CONNECTION"]}
{"op":"run","argv":["cat","/proc/self/root/etc/shadow"]}
{"op":"run","argv":["cat","/proc/1/environ"]}
{"op":"run","argv":["cat","/proc/net/tcp","/proc/net/tcp6","/proc/stat"]}
{"op":"sa-add","family":4,"src":"198.51.100.1","dst":"198.51.100.2","spi":1,"enc":"cbc(aes)","enc_key_bits":-160,"auth":"hmac(sha1)","auth_key_bits":160,"key":"00"}
{"op":"sa-add","family":4,"src":"198.51.100.1","dst":"198.51.100.2","spi":1,"aead":"rfc4106(gcm(aes))","aead_key_bits":4294967456,"aead_icv_bits":128,"key":"00"}
{"op":"kmod","name":"-v"}
{"op":"kmod","name":"../../../etc"}
{"op":"probes-attach","dev":"x\" || 1 == 1 || name == \"y"}
{"op":"x$(printf 'é%.0s' $(seq 300))"}
{"op":"run","argv":["ethtool","hang"]}
{"op":"policy-add","family":4,"src":"198.51.100.1","dst":"198.51.100.2","dir":"out","l4proto":6,"sport":80}
{"op":"policy-add","family":4,"src":"198.51.100.1","dst":"198.51.100.2","dir":"out","priority":201}
{"op":"policy-add","family":4,"src":"198.51.100.1","dst":"198.51.100.2","dir":"out","reqid":4294967297}
{"op":"policy-add","family":4,"src":"198.51.100.1","dst":"198.51.100.2","dir":"out","l4proto":17,"dport":5201}
{"op":"policy-add","family":4,"src":"198.51.100.1","dst":"198.51.100.2","dir":"out","dport":5201}
{"op":"policy-add","family":4,"src":"198.51.100.1","dst":"198.51.100.2","dir":"fwd"}
{"op":"sa-add","family":4,"src":"198.51.100.1","dst":"198.51.100.2","spi":4096,"reqid":17,"enc":"cbc(aes)","enc_key_bits":128,"auth":"hmac(sha1)","auth_key_bits":160,"key":"00"}
{"op":"sa-add","family":4,"src":"198.51.100.1","dst":"198.51.100.2","spi":1,"enc":"cbc(aes)","enc_key_bits":128,"auth":"hmac(sha1)","auth_key_bits":160,"key":"00"}
{"op":"policy-add","family":4,"src":"198.51.100.1","dst":"198.51.100.2","dir":"out","l4proto":6,"dport":5201,"priority":100,"reqid":2}
{"op":"policy-get","family":4,"src":"198.51.100.1","dst":"198.51.100.2","dir":"out","l4proto":6,"dport":5201}
{"op":"policy-get","family":4,"src":"198.51.100.1","dst":"198.51.100.2","dir":"out","l4proto":6,"dport":5202}
EOF
start=$(date +%s)
# in a network namespace of its own, whose /proc/net/tcp and tcp6 are short
SSH_CONNECTION="198.18.8.1 40000 198.18.8.2 22" PATH="$TMP/catbin:$TMP/bin:$PATH" unshare -n timeout --kill-after=5 40 \
	"$IPSECPERF" peer-agent < "$TMP/req" > "$TMP/ans" 2> "$TMP/err" ||
	fail "the agent exited $? at the end of its input: $(cat "$TMP/err")"
secs=$(($(date +%s) - start))
[ "$(wc -l < "$TMP/ans")" = 36 ] || { head -c 2000 "$TMP/ans" >&2; fail "not one answer a request"; }
python3 - "$TMP/ans" << 'EOF' || fail "the agent's answers to run are not as they should be"
import json, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")[:-1]
for i, l in enumerate(lines):
    if len(l) > 65534:
        sys.exit("answer %d is %d bytes: longer than the run reads" % (i + 1, len(l)))
a = [json.loads(l) for l in lines]
def want(i, cond, what):
    if not cond:
        sys.exit("answer %d (%s): %.300s" % (i + 1, what, a[i]))
want(0, a[0]["ok"] and a[0]["ran"] and a[0]["status"] == 3 and a[0]["out"] == "out" and a[0]["err"] == "err",
     "status, out and err")
want(1, not a[1]["ok"] and a[1]["ran"] and a[1].get("binary") is True and "out" not in a[1], "not UTF-8: said, not sent")
for i, what in ((2, "12,000 ESC"), (3, "20,000 \\001"), (4, "24,000 quotes on each stream"), (6, "endless output")):
    want(i, not a[i]["ok"] and a[i]["ran"] and a[i].get("too_long") is True and "out" not in a[i],
         what + ": too long once encoded, said, not sent")
want(5, not a[5]["ok"] and a[5]["ran"] and a[5].get("binary") is True and "out" not in a[5], "a NUL: not cut at")
for i in (7, 8, 9):
    want(i, not a[i]["ok"] and a[i]["ran"] is False and "argv" in a[i]["error"], "not an argv of strings")
for i in (10, 11, 12):
    want(i, not a[i]["ok"] and a[i]["ran"] is False and "not a command the peer testbed runs" in a[i]["error"],
         "a program the testbed does not run: refused")
want(13, a[13]["ok"] and a[13]["status"] == 0, "ethtool -K")
want(14, a[14]["ok"] and a[14]["out"] == "198.18.8.1 40000 198.18.8.2 22\n", "the session's environment")
for i in (15, 16):
    want(i, not a[i]["ok"] and a[i]["ran"] is False and "/proc/net/tcp, /proc/net/tcp6, /proc/stat, /proc/net/snmp and /proc/net/xfrm_stat" in a[i]["error"],
         "a file the testbed does not read (root's secrets through /proc): refused, the files it reads named")
want(17, a[17]["ok"] and a[17]["status"] == 0 and a[17]["out"].startswith("  sl  local_address")
     and a[17]["out"].count("local_address") == 2 and "\ncpu " in a[17]["out"], "/proc/net/tcp, tcp6 and /proc/stat, read by the agent")
for i, what in ((18, "negative key bits"), (19, "key bits past an int")):
    want(i, not a[i]["ok"] and "must be a multiple of 8 from 0 to 512" in a[i]["error"], "sa-add with " + what + ": refused")
for i, what in ((20, "an option"), (21, "a path")):
    want(i, not a[i]["ok"] and "not a module name" in a[i]["error"], "kmod of " + what + ": refused")
want(22, not a[22]["ok"] and "not a network device's name" in a[22]["error"], "probes-attach on a filter, not a device: refused")
want(23, not a[23]["ok"] and a[23]["error"].startswith("unknown request 'x\u00e9") and a[23]["error"].endswith("\u00e9'"),
     "an unknown request whose name is cut: said, cut between two characters")
want(24, not a[24]["ok"] and a[24]["ran"] and a[24].get("timed_out") is True, "past the deadline: killed, said")
# several SA pairs' fields: each out of range refused with its name, nothing made; one in range made and found by its port
for i, what, key in ((25, "port 80", "sport"), (26, "priority 201", "priority"), (27, "reqid 2^32+1", "reqid"),
                     (28, "UDP", "l4proto"), (29, "a port without a protocol", "a port without"),
                     (30, "dir fwd", "dir"), (31, "an SA's reqid 17", "reqid"), (32, "SPI 1", "spi")):
    want(i, not a[i]["ok"] and key in a[i]["error"], what + ": refused")
want(33, a[33]["ok"] and a[33]["err"] == 0, "a policy of a flow's port, priority 100, reqid 2: made")
want(34, a[34]["ok"] and a[34]["err"] == 0, "that policy: found by its port")
want(35, a[35]["ok"] and a[35]["err"] == -2, "another port's policy: not there")
EOF
[ -e "$TMP/cat-ran" ] && fail "the agent ran cat ($(cat "$TMP/cat-ran")): it reads the testbed's files itself"
[ -e "$TMP/shell-ran" ] && fail "a refused argv ran"
[ "$(cat "$TMP/changes")" = ran ] || fail "ethtool -K ran $(wc -l < "$TMP/changes") times, not once"
# the hung program and its child were killed at the deadline (10 s), and the agent then saw its input end
[ "$secs" -lt 20 ] || fail "the agent took $secs s: a hung program held it past its deadline"
hang=$(cat "$TMP/hang.pid")
for _ in $(seq 20); do # killed, it may stay a zombie a moment until it is reaped
	[ -d "/proc/$hang" ] && [ "$(awk '{print $3}' "/proc/$hang/stat" 2> /dev/null)" != Z ] || break
	sleep 0.1
done
[ -d "/proc/$hang" ] && [ "$(awk '{print $3}' "/proc/$hang/stat" 2> /dev/null)" != Z ] &&
	fail "the hung program's child outlived the agent's deadline: $(cat "/proc/$hang/cmdline" | tr '\0' ' ')"

# --- started for a key pinned to it: what the key was asked for --------------------
# sshd puts it in SSH_ORIGINAL_COMMAND; stdin is ssh's, here empty. In a
# network namespace of its own: the undo of a policy made there.
pinned() { # command, then the agent's exit status, stdout and stderr in $TMP/pin.*
	SSH_ORIGINAL_COMMAND="$1" PATH="$TMP/catbin:$TMP/bin:$PATH" "$IPSECPERF" peer-agent < /dev/null > "$TMP/pin.out" 2> "$TMP/pin.err"
	echo $? > "$TMP/pin.rc"
}
rec='{"kind":"xfrm-policy","family":4,"src":"198.51.100.1","dst":"198.51.100.2","dir":"out"}'
export -f pinned
export IPSECPERF TMP rec
unshare -n bash -c '
	ip xfrm policy add src 198.51.100.1/32 dst 198.51.100.2/32 dir out tmpl proto esp mode transport || exit 9
	pinned "ipsecperf peer-agent --undo '"'"'$rec'"'"'"
	ip xfrm policy | grep "^src" | wc -l > "$TMP/pin.left"' || fail "cannot add a policy in a namespace of its own"
[ "$(cat "$TMP/pin.rc")" = 0 ] && [ "$(cat "$TMP/pin.left")" = 0 ] ||
	fail "pinned: peer-agent --undo of a policy: exit $(cat "$TMP/pin.rc"), $(cat "$TMP/pin.left") policy left: $(cat "$TMP/pin.err")"
pinned "ethtool -K change tso on"
[ "$(cat "$TMP/pin.rc")" = 0 ] && [ "$(wc -l < "$TMP/changes")" = 2 ] || fail "pinned: ethtool -K (an undo) not run"
pinned "cat /proc/stat"
[ "$(cat "$TMP/pin.rc")" = 0 ] && head -1 "$TMP/pin.out" | grep -q '^cpu ' && [ ! -e "$TMP/cat-ran" ] ||
	fail "pinned: /proc/stat not read by the agent: exit $(cat "$TMP/pin.rc"): $(head -c 300 "$TMP/pin.err")"
for refused in "echo ipsecperf-ssh-check" "cat /proc/self/root/etc/shadow" "modprobe -v esp4" "sh -c id" "ethtool change;id" ""; do
	pinned "$refused"
	[ "$(cat "$TMP/pin.rc")" = 4 ] && [ ! -s "$TMP/pin.out" ] &&
		grep -q 'this ssh key is pinned to the agent .* was not run' "$TMP/pin.err" ||
		fail "pinned: '$refused' not refused with exit 4: exit $(cat "$TMP/pin.rc"): $(cat "$TMP/pin.out" "$TMP/pin.err")"
done
# no command and no request (what a sudo rule that drops SSH_ORIGINAL_COMMAND gives): not a silent success
"$IPSECPERF" peer-agent < /dev/null 2> "$TMP/none.err" && fail "an agent that got no request exited 0"
grep -q 'input ended before any request, so nothing was done' "$TMP/none.err" ||
	fail "an agent that got no request did not say so: $(cat "$TMP/none.err")"
exit 0

# SPDX-License-Identifier: GPL-2.0
# One help page of ipsecperf (what `ipsecperf help [COMMAND]` prints) as a
# man page. tools/mkman.sh runs it; the variables it takes:
#   page      the page's name (ipsecperf, ipsecperf-run, ...)
#   summary   the NAME line's text (default: the page's first sentence)
#   version   ipsecperf's version, date  the page's date (YYYY-MM-DD)
#   see_also  the pages SEE ALSO names, separated by spaces (NAME, or
#             NAME(8) for another section than 1)
#   docdir    where the guides (docs/*.md) are installed
#
# The help text's shape: "usage:" lines first (SYNOPSIS), then paragraphs;
# a line "name:" in lower case alone is a heading (options:, examples:),
# and "options - GROUP:" a subheading of OPTIONS (run's groups);
# under options:, commands: and environment:, an indented "TAG  text" line
# starts an item, and deeper lines continue it; other indented lines, and
# lines with columns (three spaces inside), are kept as they are. A line
# "\fFLAG" starts the page of the command's FLAG mode (report --profile).

function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	return s
}

# Text of a filled line: `code` in bold; a leading dot or quote kept as text.
function text(s,    out, i, rest, j) {
	s = esc(s)
	out = ""
	while ((i = index(s, "`")) > 0) {
		rest = substr(s, i + 1)
		j = index(rest, "`")
		if (j == 0)
			break
		out = out substr(s, 1, i - 1) "\\fB" substr(rest, 1, j - 1) "\\fR"
		s = substr(rest, j + 1)
	}
	s = out s
	gsub(/`/, "\\(ga", s)
	if (s ~ /^[.']/)
		s = "\\&" s
	return s
}

function raw(s) {
	s = esc(s)
	gsub(/`/, "\\(ga", s)
	if (s ~ /^[.']/)
		s = "\\&" s
	return s
}

# An option's tag: "-t, --duration S" as bold names and italic arguments.
function opt_tag(s,    n, parts, i, j, w, k, out, words) {
	n = split(s, parts, /, /)
	out = ""
	for (i = 1; i <= n; i++) {
		k = split(parts[i], words, / /)
		w = "\\fB" esc(words[1]) "\\fR"
		for (j = 2; j <= k; j++)
			w = w " \\fI" esc(words[j]) "\\fR"
		out = out (i > 1 ? ", " : "") w
	}
	return out
}

function end_nf() {
	if (nf) {
		print ".fi"
		nf = 0
	}
}

function end_item() {
	if (item != "") {
		print ".TP"
		print item
		print text(item_text)
		item = ""
		item_text = ""
	}
}

function flush() {
	end_item()
	end_nf()
}

function heading(s) {
	flush()
	if (s ~ /^options - / && !mode) {
		if (!options_sh)
			print ".SH OPTIONS"
		options_sh = 1
		print ".SS " toupper(esc(substr(s, 11)))
		section = "options"
	} else {
		print (mode ? ".SS " : ".SH ") toupper(esc(s))
		section = s
	}
	para = 0
}

# One usage line, unfilled: the program and its command words in bold, a
# continuation line indented under them.
function synopsis_line(s) {
	sub(/^usage: +/, "", s)
	sub(/^ +/, "", s)
	if (match(s, /^ipsecperf( [a-z][a-z-]*)*/)) {
		head = substr(s, 1, RLENGTH)
		s = "\\fB" esc(head) "\\fR" raw(substr(s, RLENGTH + 1))
	} else {
		s = "    " raw(s)
	}
	print s
}

function synopsis(    i) {
	print ".nf"
	for (i = 1; i <= nusage; i++)
		synopsis_line(usage[i])
	print ".fi"
}

BEGIN {
	state = "usage"
	section = ""
	nf = 0; para = 0; mode = 0; item = ""; item_text = ""
	nusage = 0
	upper = toupper(page)
	print ".\\\" Made by tools/mkman.sh from `" (page == "ipsecperf" ? "ipsecperf help" : "ipsecperf help " substr(page, 11)) "`; do not edit."
	print ".TH " esc(upper) " 1 \"" date "\" \"ipsecperf " version "\" \"ipsecperf manual\""
	# option names and paths read better unbroken and ragged
	print ".nh"
	print ".ad l"
}

# usage lines, up to the first blank line: kept for SYNOPSIS
state == "usage" {
	if ($0 ~ /^usage: / || ($0 ~ /^      / && nusage > 0)) {
		usage[++nusage] = $0
		next
	}
	state = "body"
	if (summary == "")
		want_summary = 1
	print ".SH NAME"
	name_pending = 1
}

state == "body" && want_summary && /[^ ]/ && !/^ / && !/^[a-z][a-z -]*:$/ {
	summary = $0
	sub(/\.$/, "", summary)
	want_summary = 0
}

state == "body" && name_pending && summary != "" {
	s = summary
	s = tolower(substr(s, 1, 1)) substr(s, 2)
	print esc(page) " \\- " text(s)
	print ".SH SYNOPSIS"
	synopsis()
	print ".SH DESCRIPTION"
	name_pending = 0
	para = 0
}

/^\f/ {
	flush()
	mode = 1
	print ".SH " toupper(esc(substr(page, 11) " " substr($0, 2)))
	section = ""
	para = 0
	nusage = 0
	mode_usage = 1
	next
}

mode_usage {
	if ($0 ~ /^usage: / || $0 ~ /^      /) {
		usage[++nusage] = $0
		next
	}
	synopsis()
	mode_usage = 0
}

/^$/ {
	flush()
	para = 0
	next
}

/^[a-z][a-z -]*:$/ {
	heading(substr($0, 1, length($0) - 1))
	next
}

# items of a list section
(section == "options" || section == "commands" || section == "environment") && /^ +[^ ]/ {
	line = $0
	match(line, /^ +/)
	ind = RLENGTH
	body = substr(line, ind + 1)
	if (item != "" && ind > item_ind && body !~ /^-/) {
		item_text = item_text (item_text == "" ? "" : " ") body
		next
	}
	if (ind <= 8 && (section != "options" || body ~ /^-/)) {
		end_item()
		end_nf()
		if (section == "commands") {
			tag = body
			sub(/ .*/, "", tag)
			rest = substr(body, length(tag) + 1)
			item = "\\fB" esc(tag) "\\fR"
			sub(/^ +/, "", rest)
			item_text = rest
		} else {
			if (match(body, /  +/)) {
				tag = substr(body, 1, RSTART - 1)
				rest = substr(body, RSTART + RLENGTH)
			} else {
				tag = body
				rest = ""
			}
			item = section == "options" ? opt_tag(tag) : "\\fB" esc(tag) "\\fR"
			item_text = rest
		}
		item_ind = ind
		next
	}
}

# an option's continuation that starts deeper than its tag
item != "" && /^ +[^ ]/ {
	line = $0
	sub(/^ +/, "", line)
	item_text = item_text (item_text == "" ? "" : " ") line
	next
}

# kept as they are: indented lines, and lines in columns
/^ / || /[^ ]   +[^ ]/ {
	end_item()
	if (!nf) {
		if (!para) {
			print ".PP"
			para = 1
		}
		print ".nf"
		nf = 1
	}
	print raw($0)
	next
}

{
	end_item()
	end_nf()
	if (!para) {
		print ".PP"
		para = 1
	}
	print text($0)
}

END {
	flush()
	if (name_pending) {
		print esc(page) " \\- " text(summary)
		print ".SH SYNOPSIS"
		synopsis()
	}
	n = split(see_also, also, / +/)
	if (n) {
		print ".SH SEE ALSO"
		k = 0
		for (i = 1; i <= n; i++)
			if (also[i] != "")
				pages[++k] = also[i]
		# a page of another section says it: ip-xfrm(8)
		for (i = 1; i <= k; i++) {
			sect = "1"
			if (match(pages[i], /\([0-9]\)$/)) {
				sect = substr(pages[i], RSTART + 1, 1)
				pages[i] = substr(pages[i], 1, RSTART - 1)
			}
			print ".BR " esc(pages[i]) " (" sect ")" (i < k ? "," : "")
		}
		print ".PP"
		print "The guides in " esc(docdir) ", or docs/ in the source tree."
	}
}

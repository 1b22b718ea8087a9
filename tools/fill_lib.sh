# SPDX-License-Identifier: GPL-2.0
# Sourced by the scripts that write docs from the program's output, never run.

# Replace the lines between "<!-- NAME begin -->" and "<!-- NAME end -->" of FILE with TEXTFILE.
fill() { # file name textfile
	awk -v name="$2" -v text="$3" '
		$0 == "<!-- " name " begin -->" { print; while ((getline l < text) > 0) print l; skip = 1; found++; next }
		$0 == "<!-- " name " end -->" { skip = 0 }
		!skip { print }
		END { if (found != 1) { print "no \"" name "\" markers in " FILENAME > "/dev/stderr"; exit 1 } }
	' "$1" > "$1.new" && mv "$1.new" "$1"
}

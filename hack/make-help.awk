# make-help.awk: `make help`. Reads Makefiles in order; a block of "## "
# comment lines whose first line is "## target: text" documents target.
# Prints every rule's target with the first sentence of its text; exits 1
# naming a target without one.
/^## / {
	if (!inblock && match($0, /^## [A-Za-z][A-Za-z0-9_.-]*:/)) {
		cur = substr($0, 4, RLENGTH - 4)
		doc[cur] = substr($0, RLENGTH + 2)
	} else if (cur != "") {
		t = $0; sub(/^## */, "", t); doc[cur] = doc[cur] " " t
	}
	inblock = 1; next
}
{ inblock = 0; cur = "" }
/^[A-Za-z0-9][A-Za-z0-9_.-]*:([^=]|$)/ {
	name = $0; sub(/:.*/, "", name)
	if (!(name in seen)) { seen[name] = 1; order[n++] = name }
}
END {
	bad = 0
	for (i = 0; i < n; i++) {
		t = order[i]
		if (!(t in doc)) { printf "make help: target %s has no \"## %s: ...\" comment\n", t, t > "/dev/stderr"; bad = 1; continue }
		d = doc[t]; sub(/^ +/, "", d)
		if (match(d, /\. /)) d = substr(d, 1, RSTART)
		printf "  %-20s %s\n", t, d
	}
	exit bad
}

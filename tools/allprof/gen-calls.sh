#!/bin/sh
# gen-calls.sh: write the files that follow from formats/calls.tsv, the one
# description of the trace layout of every MPI call allprof records
# (formats/calls.md describes its columns and encoders).
#
#   gen-calls.sh t2g  < formats/calls.tsv > lib/ir_t2g_calls.h
#       trace2goal's call table (an X-macro list of rows, sorted by name as
#       strcmp() orders them, expanded into a const array by lib/ir_t2g_call.c)
#       and the index of every field by name (F_MPI_Send_dest);
#   gen-calls.sh doc  < formats/calls.tsv
#       the table of formats/trace.md, section 3.3 (the lines between its
#       "calls.tsv" markers);
#   gen-calls.sh c    < formats/calls.tsv > tools/allprof/liballprof_mpi_gen.inc
#   gen-calls.sh f    < formats/calls.tsv > tools/allprof/liballprof_f_gen.inc
#       liballprof's C wrappers and Fortran entry points of every call that
#       has a C prototype in the schema (the others, "hook", are written by
#       hand in liballprof_mpi.c and liballprof_f.c, which include these).
#       A wrapper is the one shape every hand-written wrapper of such a call
#       had: call PMPI (or the next Fortran entry) between two clock reads,
#       then under the lock register what the call made, compute list
#       lengths once, and append one field per schema field through its
#       encoder; so it does the same work as before it was generated.
#   gen-calls.sh nf   < formats/calls.tsv
#       each call and the number of fields of its lines between t_call and
#       t_return, the repeat count of polls included (the tests check real
#       traces with it).
#
# The outputs are checked in (so that building needs no generator and a
# reader sees the code that is compiled); `make gen-calls` rewrites them and
# tests/t0003-calls-schema.sh fails when one differs from what this script
# makes of the schema. Plain POSIX sh and awk: no new build dependency.
# Special list lengths (cartdims, degsum, lastindex) and the conditions
# root/send are named hooks here, each one C expression per language.
#
# The script stops with a message on a malformed line, an unknown encoder,
# a field name used twice in one call or that is no parameter of the call's
# C prototype, an encoder that needs a hand-written wrapper in a generated
# one, and when calls that trace2goal converts with one piece of code (same
# t2g kind) have different fields: lib/ir_t2g_*.c read such a family with the
# indices of one of its members.
set -e
mode=${1:?usage: gen-calls.sh t2g|doc|c|f|nf < formats/calls.tsv}
case $mode in t2g|doc|c|f|nf) ;; *) echo "gen-calls.sh: unknown mode '$mode'" >&2; exit 2;; esac

LC_ALL=C awk -F'\t' -v mode="$mode" '
function die(msg) { print "gen-calls.sh: calls.tsv:" NR ": " msg > "/dev/stderr"; failed = 1; exit 1 }
BEGIN {
	# encoder -> trace fields it takes (formats/calls.md)
	split("addr ptr buf int aint bool undef splittype order outint peer tag type comm op status statuses req newreq newpreq reqs msg newmsg list bools ranges newcomm group newgroup newtype file offset fname whence win newwin", one, " ")
	for (i in one) slots[one[i]] = 1
	split("counts aints types", two, " ")
	for (i in two) slots[two[i]] = 2
	# encoder -> marker in the table of formats/trace.md
	mark["counts"] = " [c]"; mark["aints"] = " [c]"; mark["types"] = " [t]"
	mark["list"] = " [i]"; mark["bools"] = " [i]"; mark["ranges"] = " [i]"
	# list encoders: their length goes into the record'"'"'s bound (ap_begin), weighted by entry size
	split("list bools ranges counts aints reqs", w1, " ")
	for (i in w1) weight[w1[i]] = 1
	weight["types"] = 2; weight["statuses"] = 2
	n = 0
}
/^#/ || /^$/ { next }
{
	if (NF != 6) die("expected 6 tab-separated columns, found " NF)
	name = $1
	if (name !~ /^MPI_[A-Za-z_]+$/) die("bad call name \"" name "\"")
	if (name in idx) die(name " twice")
	idx[name] = ++n
	ln[n] = NR
	call[n] = name; t2g[n] = $2; flags[n] = $3; fields[n] = $4; note[n] = $5; cproto[n] = $6
	np[n] = 0
	if ($6 != "hook") {
		np[n] = split($6, pl, ", ")
		for (k = 1; k <= np[n]; k++) {
			pr = pl[k]; sub(/\[.*$/, "", pr)
			if (!match(pr, /[A-Za-z_][A-Za-z0-9_]*$/)) die(name ": bad parameter \"" pl[k] "\"")
			pn[n, k] = substr(pr, RSTART)
			pt[n, k] = substr(pr, 1, RSTART - 1)
			parr[n, k] = index(pl[k], "[") > 0
			pidx[n, pn[n, k]] = k
		}
	}
	nf[n] = 0
	nfld[n] = $4 == "" ? 0 : split($4, fl, " ")
	delete seen
	for (j = 1; j <= nfld[n]; j++) {
		f = fl[j]
		if (f !~ /^[a-z_0-9]+:[a-z]+(\/[a-z0-9_]+(@[a-z]+)?)?$/) die(name ": bad field \"" f "\"")
		fname = f; sub(/:.*/, "", fname)
		enc = f; sub(/^[^:]*:/, "", enc); sub(/\/.*/, "", enc)
		len = ""; cond = ""
		if (index(f, "/")) { len = f; sub(/^[^\/]*\//, "", len); if (index(len, "@")) { cond = len; sub(/^[^@]*@/, "", cond); sub(/@.*/, "", len) } }
		if (!(enc in slots)) die(name ": unknown encoder \"" enc "\"")
		if (fname in seen) die(name ": field \"" fname "\" twice")
		seen[fname] = 1
		fn[n, j] = fname; fe[n, j] = enc; flen[n, j] = len; fcond[n, j] = cond
		if (np[n] && !((n, fname) in pidx)) die(name ": field \"" fname "\" is no parameter of the C prototype")
		fslot[n, j] = nf[n]
		nf[n] += slots[enc]
	}
	if (flags[n] !~ /^(-|poll|nb|init)$/) die(name ": unknown flags \"" flags[n] "\"")
}
# the fields of call i without the request of a nonblocking twin
function base_fields(i,    s) {
	s = fields[i]
	if (flags[i] == "nb") sub(/ request:newreq$/, "", s)
	return s
}
function ckind(k,    s) { s = k; sub(/\/.*/, "", s); return "C_" toupper(s) }
function csub(k,    s, p) {
	if (!index(k, "/")) return "0"
	p = k; sub(/\/.*/, "", p); s = k; sub(/^[^\/]*\//, "", s)
	if (p == "coll") return s == "ALLTOALLW" ? "COLL_ALLTOALLW" : s == "COMM_SPLIT_TYPE" ? "IR_COLL_COMM_SPLIT" : "IR_COLL_" s
	if (p == "neigh") return "NB_" s
	die("t2g kind \"" k "\": no sub-kind expected")
}
function emit_t2g(    i, j, k, fam, rows, nr, tmp, fc, fq) {
	print "/* lib/ir_t2g_calls.h: generated by tools/allprof/gen-calls.sh from formats/calls.tsv; do not edit."
	print " *"
	print " * trace2goal'"'"'s call table and the position of every field it reads. F_<call>_<field> is"
	print " * the index in ir_rec.f of the field <field> of <call>; a count, displacement or datatype"
	print " * array takes two fields, its address (F_<call>_<field>) and its values"
	print " * (F_<call>_<field>_list). Calls of one kind (IR_T2G_CALLS'"'"' second column) have the same"
	print " * fields (a nonblocking collective: its blocking twin'"'"'s and the request), so code that"
	print " * converts a kind may use the indices of any one of its calls. */"
	print "#ifndef IR_T2G_CALLS_H"
	print "#define IR_T2G_CALLS_H"
	print ""
	print "enum {"
	for (i = 1; i <= n; i++) {
		if (t2g[i] == "-") continue
		for (j = 1; j <= nfld[i]; j++) {
			printf "\tF_%s_%s = %d,\n", call[i], fn[i, j], fslot[i, j]
			if (slots[fe[i, j]] == 2)
				printf "\tF_%s_%s_list = %d,\n", call[i], fn[i, j], fslot[i, j] + 1
		}
	}
	print "};"
	print ""
	print "/* X(name, kind, sub-kind, nonblocking, fields, comm, request) for each call trace2goal"
	print " * converts, sorted by name (strcmp): fields is the number of fields before t_return, without"
	print " * the repeat count of polls (0 for MPI_Init(_thread), whose fields are not checked:"
	print " * liballprof wrote others); comm and request are the indices of the fields of these names"
	print " * (-1: none), for code shared by calls of different layouts (the collectives). */"
	print "#define IR_T2G_CALLS(X) \\"
	nr = 0
	for (i = 1; i <= n; i++) {
		if (t2g[i] == "-") continue
		# one kind, one layout (checked here, relied on by lib/ir_t2g_*.c)
		fam = t2g[i]
		if (fam != "init") {
			if (fam in famf && famf[fam] != base_fields(i)) {
				NR = ln[i]
				die(call[i] " has other fields than " famc[fam] " (both t2g kind " fam ")")
			}
			if (!(fam in famf)) { famf[fam] = base_fields(i); famc[fam] = call[i] }
		}
		fc = fq = -1
		for (j = 1; j <= nfld[i]; j++) {
			if (fn[i, j] == "comm") fc = fslot[i, j]
			if (fn[i, j] == "request") fq = fslot[i, j]
		}
		rows[++nr] = sprintf("\tX(\"%s\", %s, %s, %d, %d, %d, %d)", call[i], ckind(t2g[i]), csub(t2g[i]),
		                     flags[i] == "nb", t2g[i] == "init" ? 0 : nf[i], fc, fq)
		key[nr] = call[i]
	}
	# insertion sort by name (byte order, as strcmp)
	for (i = 2; i <= nr; i++)
		for (j = i; j > 1 && key[j - 1] > key[j]; j--) {
			tmp = key[j]; key[j] = key[j - 1]; key[j - 1] = tmp
			tmp = rows[j]; rows[j] = rows[j - 1]; rows[j - 1] = tmp
		}
	for (i = 1; i <= nr; i++)
		print rows[i] (i < nr ? " \\" : "")
	print ""
	print "#endif"
}
function doc_fields(i,    j, s) {
	s = ""
	for (j = 1; j <= nfld[i]; j++)
		s = s (j > 1 ? ", " : "") fn[i, j] ((fe[i, j] in mark) ? mark[fe[i, j]] : "")
	if (flags[i] == "poll") s = s (s == "" ? "" : ", ") "n"
	if (s == "") s = "(none)"
	return s
}
function emit_doc(    i, k, g, ng, gk, gnames) {
	ng = 0
	for (i = 1; i <= n; i++) {
		k = doc_fields(i) "\t" note[i]
		if (!(k in gi)) { gi[k] = ++ng; gk[ng] = k; gnames[ng] = call[i] }
		else gnames[gi[k]] = gnames[gi[k]] ", " call[i]
	}
	print "| call | fields | notes |"
	print "|---|---|---|"
	for (g = 1; g <= ng; g++) {
		split(gk[g], parts, "\t")
		printf "| %s | %s | %s |\n", gnames[g], parts[1], parts[2]
	}
}
# ---- the wrappers of liballprof (modes c and f)
function val(x, lang) { return lang == "c" ? x : "*" x }
function lenexpr(i, len, lang,    m) {
	if (len == "size") return "n_size"
	if (len == "in") return "n_in"
	if (len == "out") return "n_out"
	if (len == "cartdims") return "n_cart"
	if (len == "degsum") return "n_deg"
	if (len == "lastindex") return "n_last"
	if (match(len, /^[0-9]+/)) {
		m = substr(len, 1, RLENGTH)
		return m " * " lenexpr(i, substr(len, RLENGTH + 1), lang)
	}
	if (!((i, len) in pidx)) { NR = ln[i]; die(call[i] ": length \"" len "\" is no parameter") }
	return val(len, lang)
}
function condexpr(i, j, x) {
	if (fcond[i, j] == "root") return "at_root ? " x " : NULL"
	if (fcond[i, j] == "send") return "in_place ? NULL : " x
	return x
}
# the statement that appends field j of call i
function fieldstmt(i, j, lang,    x, e, L, c) {
	x = fn[i, j]; e = fe[i, j]; c = lang == "c"
	L = flen[i, j] == "" ? "" : lenexpr(i, flen[i, j], lang)
	if (e == "addr") return c ? "f_ptr(p, " x ")" : "ff_buf(p, " x ")"
	if (e == "ptr") return "f_ptr(p, " x ")"
	if (e == "buf") return c ? "f_buf(p, " x ")" : "ff_buf(p, " x ")"
	if (e == "int") return "f_int(p, " val(x, lang) ")"
	if (e == "aint") return "f_int(p, (int64_t)" val(x, lang) ")"
	if (e == "bool") return c ? "f_int(p, " x ")" : "f_int(p, *" x " != 0)"
	if (e == "undef") return c ? "f_int(p, undef(" x "))" : "f_int(p, *" x " == MPI_UNDEFINED ? -1 : *" x ")"
	if (e == "splittype")
		return c ? "f_int(p, undef(AP_SPLIT_TYPE(" x ")))" : "f_int(p, *" x " == MPI_UNDEFINED ? -1 : AP_SPLIT_TYPE(*" x "))"
	if (e == "order") return "f_int(p, AP_ORDER(" val(x, lang) "))"
	if (e == "outint") return "f_int(p, " (c ? "rc" : "*ierr") " == MPI_SUCCESS ? *" x " : -1)"
	if (e == "peer") return "f_peer(p, " val(x, lang) ")"
	if (e == "tag") return "f_tag(p, " val(x, lang) ")"
	if (e == "type") return "f_type(p, " (c ? (pt[i, pidx[i, x]] ~ /\*/ ? "*" x : x) : "TYPE(" x ")") ")"
	if (e == "comm") return "f_comm(p, " (c ? x : "COMM(" x ")") ")"
	if (e == "op") return "f_op(p, " (c ? x : "OP(" x ")") ")"
	if (e == "group") return "f_group(p, " (c ? x : "GRP(" x ")") ")"
	if (e == "status") return c ? "f_status(p, " x ")" : "ff_status(p, " x ")"
	if (e == "req") return "f_req(p, ap_req_id(" (c ? "*" x : "PMPI_Request_f2c(*" x ")") ", " x "))"
	if (e == "newreq" || e == "newpreq") return "f_req(p, id)"
	if (e == "newmsg") return "f_msg(p, ap_msg_new(" (c ? "*" x : "PMPI_Message_f2c(*" x ")") "))"
	if (e == "newcomm") return "f_newcomm(p, " okexpr(lang) " ? " (c ? "*" x : "COMM(" x ")") " : MPI_COMM_NULL)"
	if (e == "newgroup") return "f_newgroup(p, " okexpr(lang) " ? " (c ? "*" x : "GRP(" x ")") " : MPI_GROUP_NULL)"
	if (e == "newtype") return "f_type(p, " okexpr(lang) " ? " (c ? "*" x : "TYPE(" x ")") " : MPI_DATATYPE_NULL)"
	if (e == "win") return "f_win(p, " (c ? x : "WIN(" x ")") ")"
	if (e == "newwin") return "f_newwin(p, " okexpr(lang) " ? " (c ? "*" x : "WIN(" x ")") " : MPI_WIN_NULL)"
	if (e == "list") return "f_list(p, " condexpr(i, j, x) ", " L ")"
	if (e == "bools") return (c ? "f_list(p, " : "ff_bools(p, ") condexpr(i, j, x) ", " L ")"
	if (e == "ranges") return "f_list(p, " (c ? L " > 0 ? &" x "[0][0] : NULL" : x) ", " L ")"
	if (e == "counts") return "f_ints(p, " condexpr(i, j, x) ", " L ")"
	if (e == "aints") return (c ? "f_aints(p, " : "ff_aints(p, ") condexpr(i, j, x) ", " L ")"
	if (e == "types") return (c ? "f_types(p, " : "ff_types(p, ") condexpr(i, j, x) ", " L ")"
	NR = ln[i]; die(call[i] ": encoder \"" e "\" needs a hand-written wrapper (hook)")
}
function okexpr(lang) { return lang == "c" ? "rc == MPI_SUCCESS" : "*ierr == MPI_SUCCESS" }
function args(i,    k, s) {
	s = ""
	for (k = 1; k <= np[i]; k++) s = s (k > 1 ? ", " : "") pn[i, k]
	return s
}
function fparams(i, names,    k, s, t) {
	s = ""
	for (k = 1; k <= np[i]; k++) {
		t = pt[i, k] ~ /void/ ? "void *" : pt[i, k] ~ /MPI_Aint/ ? "MPI_Aint *" : "F *"
		s = s (k > 1 ? ", " : "") t (names ? pn[i, k] : "")
	}
	sub(/ $/, "", s); gsub(/ ,/, ",", s)
	return s
}
# the statements in the lock before ap_begin (ind: indentation); sets bound, the record bound
function prologue(i, lang, ind,    j, e, s, need, c, b, L, bw, bl, nb) {
	c = lang == "c"; s = ""; b = ""
	for (j = 1; j <= nfld[i]; j++) {
		need[flen[i, j]] = 1
		need["@" fcond[i, j]] = 1
		e = fe[i, j]
		if (e == "newreq" || e == "newpreq")
			s = s ind "uint64_t id = " okexpr(lang) " ? ap_req_new(" (c ? "*" fn[i, j] : "PMPI_Request_f2c(*" fn[i, j] ")") \
			    ", " fn[i, j] ", " (e == "newpreq") ") : 0;\n"
		if (e == "newtype")
			s = s ind "if (" okexpr(lang) ")\n" ind "\tap_type_new(" (c ? "*" fn[i, j] : "TYPE(" fn[i, j] ")") ");\n"
		if (e in weight) {
			L = lenexpr(i, flen[i, j], lang)
			if (!(L in bw)) bl[++nb] = L
			bw[L] += weight[e]
		}
	}
	for (j = 1; j <= nb; j++)
		b = b (j > 1 ? " + " : "") (bw[bl[j]] > 1 ? bw[bl[j]] " * " : "") "(" bl[j] " > 0 ? " bl[j] " : 0)"
	if ("size" in need) s = s ind "int n_size = " (c ? "ap_comm_size(comm)" : "fsize(comm)") ";\n"
	if ("in" in need || "out" in need) {
		s = s ind "int n_in, n_out;\n" ind "ap_nbr_counts(" (c ? "comm" : "COMM(comm)") ", &n_in, &n_out);\n"
		if (!("in" in need)) s = s ind "(void)n_in;\n"
		if (!("out" in need)) s = s ind "(void)n_out;\n"
	}
	if ("cartdims" in need) s = s ind "int n_cart = " (c ? "cart_ndims(comm)" : "fcart_ndims(COMM(comm))") ";\n"
	if ("degsum" in need) s = s ind "int n_deg = " (c ? "(int)degree_sum(degrees, n)" : "fsum(degrees, *n)") ";\n"
	if ("lastindex" in need)
		s = s ind "int n_last = " (c ? "nnodes > 0 && index ? index[nnodes - 1] : 0" : "*nnodes > 0 && index ? index[*nnodes - 1] : 0") ";\n"
	if ("@root" in need) s = s ind "int at_root = " (c ? "comm_rank(comm) == root" : "frank(comm) == *root") ";\n"
	if ("@send" in need) s = s ind "int in_place = " (c ? "sbuf == MPI_IN_PLACE" : "fbuf(sbuf) == MPI_IN_PLACE") ";\n"
	bound = b == "" ? "AP_B" : "AP_BN(" b ")"
	return s
}
function has_status(i,    j) {
	for (j = 1; j <= nfld[i]; j++) if (fe[i, j] == "status") return 1
	return 0
}
function emit_c(    i, j, a, pro) {
	print "/* liballprof_mpi_gen.inc: generated by tools/allprof/gen-calls.sh from formats/calls.tsv; do not edit."
	print " *"
	print " * The C wrappers of the calls whose wrappers follow from the schema, included at the end of"
	print " * liballprof_mpi.c (which defines the helpers they use). The other calls (\"hook\" in the"
	print " * schema'"'"'s last column) have hand-written wrappers in liballprof_mpi.c. */"
	for (i = 1; i <= n; i++) {
		if (cproto[i] == "hook") continue
		a = args(i)
		pro = prologue(i, "c", "\t")
		print ""
		printf "int %s(%s)\n{\n", call[i], cproto[i]
		printf "\tif (!AP_ON())\n\t\treturn P%s(%s);\n", call[i], a
		if (has_status(i))
			printf "\tMPI_Status st;\n\tempty_status(&st);\n\tif (status == MPI_STATUS_IGNORE)\n\t\tstatus = &st;\n"
		printf "\tuint64_t t0 = ap_now();\n\tint rc = P%s(%s);\n\tuint64_t t1 = ap_now();\n\tap_lock();\n", call[i], a
		printf "%s", pro
		printf "\tchar *p = ap_begin(%s, \"%s\", t0);\n", bound, call[i]
		for (j = 1; j <= nfld[i]; j++) printf "\tp = %s;\n", fieldstmt(i, j, "c")
		printf "\tap_end(p, t1);\n\tap_unlock();\n\treturn rc;\n}\n"
	}
}
function emit_f(    i, j, a, pro, lo) {
	print "/* liballprof_f_gen.inc: generated by tools/allprof/gen-calls.sh from formats/calls.tsv; do not edit."
	print " *"
	print " * The Fortran entry points (mpi_<name>_ and Open MPI'"'"'s ompi_<name>_f, through ENTRY2) of"
	print " * the calls whose wrappers follow from the schema, included at the end of liballprof_f.c"
	print " * (which defines the helpers they use). The other calls (\"hook\" in the schema'"'"'s last"
	print " * column) have hand-written entry points in liballprof_f.c. */"
	for (i = 1; i <= n; i++) {
		if (cproto[i] == "hook") continue
		a = args(i)
		lo = tolower(substr(call[i], 5))
		pro = prologue(i, "f", "\t")
		print ""
		printf "typedef void (*gt_%s)(%s, F *);\n", lo, fparams(i, 0)
		printf "static void gw_%s(gt_%s real, %s, F *ierr)\n{\n", lo, lo, fparams(i, 1)
		printf "\tif (!FON()) {\n\t\tCALL(real, %s, ierr);\n\t\treturn;\n\t}\n", a
		if (has_status(i)) printf "\tFSTATUS(status, own);\n"
		printf "\tuint64_t t0 = ap_now();\n\tCALL(real, %s, ierr);\n\tuint64_t t1 = ap_now();\n\tap_lock();\n", a
		printf "%s", pro
		printf "\tchar *p = ap_begin(%s, \"%s\", t0);\n", bound, call[i]
		for (j = 1; j <= nfld[i]; j++) printf "\tp = %s;\n", fieldstmt(i, j, "f")
		printf "\tap_end(p, t1);\n\tap_unlock();\n}\n"
		printf "ENTRY2(mpi_%s, ompi_%s_f, gw_%s, gt_%s, (%s, F *ierr), (%s, ierr))\n", lo, lo, lo, lo, fparams(i, 1), a
	}
}
END {
	if (failed) exit 1
	if (mode == "t2g") emit_t2g()
	else if (mode == "doc") emit_doc()
	else if (mode == "c") emit_c()
	else if (mode == "f") emit_f()
	else if (mode == "nf") for (i = 1; i <= n; i++) printf "%s\t%d\n", call[i], nf[i] + (flags[i] == "poll")
}
'

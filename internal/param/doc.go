// Package param reads what front ends are given as text: the analysis
// window ("7d", "36h": ParseWindow, FormatWindow, its limits) and a
// request's query parameters (Query: strings, lists, numbers, windows
// and times, each problem collected so that one answer lists them all,
// an unknown parameter a problem that names the ones the endpoint takes).
//
// It is kept light on purpose (issue 31): it imports the standard library
// only, so its fuzz target (FuzzQueryParams) links a small binary and
// fuzzes rather than spending its budget starting workers. app wraps
// ParseWindow's error as a usage error; serve turns a Query's problems
// into one. It must not import any gpuwise package (TestImportsTheStandardLibraryOnly;
// internal/archtest classifies it as core).
package param

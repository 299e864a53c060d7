// Package lib holds what the hack scripts share: proc.sh starts their
// long-lived processes (servers) without the integration lock's file
// descriptor. It has no Go code; proc_test.go tests the shell functions.
// It must not be imported.
package lib

// Package config reads gpuwise's configuration files into the engines'
// option structs: today the recommendation policy (rightsize.Policy).
// Decoding is strict: every unknown key, wrong type and out-of-range value
// is reported with its field path, all at once. Fields a file leaves out
// keep their documented defaults.
//
// It may import core packages, sigs.k8s.io/yaml and
// k8s.io/apimachinery's resource quantities; it must not import adapters
// or front ends, or read flags or the environment (the composition root
// does that and passes bytes in).
package config

package main

import "github.com/memplan/memplan/internal/atomicfile"

// writeFileAtomic writes data to path through a temporary file in the same
// folder, synced and renamed, so an error never leaves a partial file.
func writeFileAtomic(path string, data []byte) error { return atomicfile.Write(path, data) }

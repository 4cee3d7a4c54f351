// Package readlimit reads the files macepc is given with a cap on their
// size, so that an input that is not what it should be (--edd /dev/zero,
// a profile.json linked to a device, a JSON line of a gigabyte) is refused
// at once with an error that says so, instead of exhausting memory.
//
// The caps fit their formats (MaxJSONFile, MaxJSONLine, MaxEDDFile,
// MaxPathFile, MaxTextFile): each is far above what a run writes. A
// regular file larger than its cap is refused before any byte is read; a
// pipe or a device is read up to the cap and refused there. A file that
// must hold JSON is refused as soon as its first character cannot start a
// JSON object (/dev/zero's NUL bytes).
//
// # Usage
//
//	b, err := readlimit.ReadJSONFile("out/profile.json", readlimit.MaxJSONFile)
//	r := readlimit.NewReader(f, readlimit.MaxPathFile) // fails past the cap
//	line, err := readlimit.ReadLine(br, readlimit.MaxJSONLine)
//
// # Determinism
//
// What is read, and whether it is refused, depends on the input alone.
package readlimit

package bundle

// hugeFileBuffer is the size from which an evidence file's buffer is
// advised for huge pages where the system has them (newFileBuffer): two
// 2 MiB pages at least fit inside it.
const hugeFileBuffer = 4 << 20

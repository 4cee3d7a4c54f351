// Package bullet is Bullet′, the mesh file-distribution protocol of the
// MacePC paper's §5.1, over RanSub (package ransub), with the paper's two
// performance bugs.
package bullet

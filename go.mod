module github.com/macepc/macepc

go 1.24.0

require (
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/spf13/pflag v1.0.10
	gonum.org/v1/gonum v0.17.0
)

package main

import (
	"os"

	"github.com/macepc/macepc/cli"
	"github.com/macepc/macepc/systems/backoff"
	"github.com/macepc/macepc/systems/bamboo"
	"github.com/macepc/macepc/systems/bullet"
	"github.com/macepc/macepc/systems/chord"
	"github.com/macepc/macepc/systems/elect"
	"github.com/macepc/macepc/systems/etcdraft"
	"github.com/macepc/macepc/systems/pastry"
	"github.com/macepc/macepc/systems/pingpong"
	"github.com/macepc/macepc/systems/randtree"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, randtree.System(), pastry.System(), bamboo.System(), chord.System(), etcdraft.System(), pingpong.System(), bullet.System(), elect.System(), backoff.System()))
}

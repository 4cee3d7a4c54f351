package bench

import (
	"github.com/macepc/macepc/systems/bamboo"
	"github.com/macepc/macepc/systems/chord"
	"github.com/macepc/macepc/systems/pastry"
	"github.com/macepc/macepc/systems/randtree"
)

// PaperSystems are the bundled systems with the paper's bugs, as PAPER.md
// runs them (from the repository's root: the EDD paths are relative to it).
func PaperSystems() []PaperSystem {
	return []PaperSystem{
		{System: randtree.System(), EDD: "systems/randtree/testdata/edd.json", Period: randtree.DefaultRecoveryPeriod, Timer: "recovery",
			BugLabels: []string{"deliver JoinReply → Remove", "deliver Join → NewRoot"}},
		{System: pastry.System(), EDD: "systems/pastry/testdata/edd.json", Period: pastry.DefaultLeafPeriod, Timer: "leafset",
			BugLabels: []string{"deliver Announce*"}},
		{System: bamboo.System(), EDD: "systems/bamboo/testdata/edd.json", Period: bamboo.DefaultLeafPeriod, Timer: "leafset",
			BugLabels: []string{"deliver Inform*"}},
		{System: chord.System(), EDD: "systems/chord/testdata/edd.json", Period: chord.DefaultRecovery, Timer: "recovery",
			BugLabels: []string{"deliver JoinReply → (nothing)"}},
	}
}

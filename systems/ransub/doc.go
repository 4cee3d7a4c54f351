// Package ransub is RanSub, the gossip protocol that periodically delivers
// a changing random subset of the participants to each node (Kostić et
// al., cited by the MacePC paper §5.1 as the layer Bullet′ runs on).
//
// RanSub runs over a tree; here a fixed Fanout-ary tree rooted at node 0
// (node i's parent is (i-1)/Fanout), which Bullet′'s source roots. Each
// epoch has two phases:
//
//   - collect, bottom up: a node that has heard from all its children
//     sends its parent a Collect with a random subset (at most SubsetSize)
//     of itself and its children's subsets, and the size of its subtree;
//     leaves start it at once;
//   - distribute, top down: every Epoch (5 s by default) the root's timer
//     starts a new epoch, and each node sends each child a Distribute with
//     a random subset of what came from above, itself and its subtree's
//     last collect; a node hands the subset it received (without itself)
//     to the layer above through Handler.Subset, then collects again.
//
// The first collect starts when the nodes start, so the first subsets
// arrive one epoch (5 s) in: a node that needs peers before then waits —
// the delay of Bullet′'s second bug. This is the "RanSub-all" flavour
// (subsets of all participants); the subsets are uniform over the union of
// the sets gathered rather than weighted by subtree sizes, which keeps
// them random and changing, what Bullet′ relies on.
//
// # Usage
//
// RanSub is a layer: stack it under the service that uses it with
// timedsim.NewStack, its messages owned by Owns:
//
//	rs := ransub.NewNode(id, n, ransub.Config{}, nil)
//	app := newApp(id)
//	st := timedsim.NewStack(
//		timedsim.Layer{Name: "ransub", Service: rs, Owns: ransub.Owns},
//		timedsim.Layer{Name: "app", Service: app},
//	)
//	rs.SetHandler(ransub.HandlerFunc(func(ctx timedsim.Context, e int, peers []ransub.NodeID) {
//		app.Subset(st.Context(ctx, "app"), e, peers)
//	}))
//
// RanSub sends on the scenario's default transport (index 0), which
// should be unbounded: a dropped Collect stalls a round until the next
// epoch.
//
// # Determinism
//
// Subsets are drawn from the handler's Context.Rand, so the same path
// gives the same subsets; the sets are kept sorted.
package ransub

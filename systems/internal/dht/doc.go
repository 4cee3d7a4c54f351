// Package dht holds the data structures that the bundled Pastry and Bamboo
// systems share: 32-bit identifiers on a circular space read as base-16
// digits (Pastry's b = 4), the routing table with one row per shared
// prefix length, Pastry's leaf set (the H nearest nodes on each side),
// Pastry's routing step (leaf set, then table, then the rare case) and the
// MacePC paper's stopping condition for both (§5.2): every node knows its
// immediate neighbours and every pair routes within ⌈log_{2^b} n⌉ (plus a
// small slack) hops.
//
// A protocol exposes its node state through State; Ring holds the true
// ring of a scenario and checks states against it. Ring.NewStable is the
// stopping condition for timedsim.Scenario.NewStop: it re-checks the node
// whose neighbours were last wrong first, and runs the O(n²) routing check
// only once every node knows its neighbours and some node's state (its
// Version) has changed since the routing check last failed.
//
// # Determinism
//
// Everything here is a pure function of its inputs; identifiers come from
// a splitmix64 hash of the node index and a salt (NodeIDs), ties in
// "numerically closest" go to the lower identifier, and no map is ever
// iterated.
package dht

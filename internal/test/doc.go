// Package test is the root of sparkdx's test harnesses, kept apart from
// the product as gopls keeps its own: sparktest (real Spark and the other
// real programs), scenario (the real-Spark scenario library), hstest (the
// History Server's golden answers), deltaread and deltacheck (independent
// readers of the Delta tables sparkdx writes). The product is internal/
// minus internal/test; TestProductImportsNoHarness fails when a package
// that ships imports one of them.
package test

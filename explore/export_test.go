package explore

// BigExecution is bigExecution for the browser benchmark.
var BigExecution = bigExecution

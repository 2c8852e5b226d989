// A negative application condition: directors of a movie who do not act in it.
// Distinct pattern nodes bind distinct nodes, as the SQL of the benchmark peers has it:
// gemp: semantics=isomorphism
MATCH (d:Person)-[:DIRECTOR]->(m:Movie)
WHERE NOT (d)-[:ACTOR|ACTRESS]->(m)
RETURN count(*) AS credits, count(DISTINCT d) AS directors

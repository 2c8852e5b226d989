// NOT EXISTS: people who directed a movie but never acted in any title.
// Distinct pattern nodes bind distinct nodes, as the SQL of the benchmark peers has it:
// gemp: semantics=isomorphism
MATCH (d:Person)-[:DIRECTOR]->(m:Movie)
WHERE NOT EXISTS { MATCH (d)-[:ACTOR|ACTRESS]->(:Title) }
RETURN count(DISTINCT d) AS directors

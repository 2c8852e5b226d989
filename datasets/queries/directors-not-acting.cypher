// A negative application condition: directors of a movie who do not act in it.
MATCH (d:Person)-[:DIRECTOR]->(m:Movie)
WHERE NOT (d)-[:ACTOR|ACTRESS]->(m)
RETURN count(*) AS credits, count(DISTINCT d) AS directors

// NOT EXISTS: people who directed a movie but never acted in any title.
MATCH (d:Person)-[:DIRECTOR]->(m:Movie)
WHERE NOT EXISTS { MATCH (d)-[:ACTOR|ACTRESS]->(:Title) }
RETURN count(DISTINCT d) AS directors

// Kùzu matches homomorphically: injectivity is the explicit <> conditions; id() orders nodes.
MATCH (a1:Person)-[:ACTOR]->(m:Title)<-[:ACTOR]-(a2:Person),
      (a3:Person)-[:ACTOR]->(m)<-[:ACTOR]-(a4:Person)
WHERE m.titleType = 'movie' AND a1.primaryName CONTAINS 'Jack'
  AND id(a2) < id(a3) AND id(a3) < id(a4)
  AND a1 <> a2 AND a1 <> a3 AND a1 <> a4
RETURN count(*) AS embeddings

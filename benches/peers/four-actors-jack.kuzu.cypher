// Kùzu matches homomorphically: injectivity is the explicit <> conditions.
MATCH (a1:Person)-[:ACTOR]->(m:Title)<-[:ACTOR]-(a2:Person),
      (a3:Person)-[:ACTOR]->(m)<-[:ACTOR]-(a4:Person)
WHERE m.titleType = 'movie' AND a1.primaryName CONTAINS 'Jack'
  AND a2.nconst < a3.nconst AND a3.nconst < a4.nconst
  AND a1 <> a2 AND a1 <> a3 AND a1 <> a4
RETURN count(*) AS embeddings

// Four actors in one movie, one of them named Jack (datasets/queries/four-actors-jack.cypher, counted).
// Distinct pattern nodes bind distinct nodes, as the SQL of the benchmark peers has it:
// gemp: semantics=isomorphism
MATCH (a1:Person)-[:ACTOR]->(m:Movie)<-[:ACTOR]-(a2:Person),
      (a3:Person)-[:ACTOR]->(m)<-[:ACTOR]-(a4:Person)
WHERE a1.primaryName CONTAINS 'Jack'
  AND id(a2) < id(a3) AND id(a3) < id(a4)
RETURN count(*) AS embeddings

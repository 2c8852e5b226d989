// Kùzu version of ../SwitchSet.cypher: the same text (the pattern's relationships have distinct
// types, so Kùzu's homomorphic matching gives the same rows as relationship isomorphism; enum
// values are strings in both). The runner counts the rows: it replaces the final RETURN by
// RETURN count(*).
MATCH (route:Route)-[:entry]->(semaphore:Semaphore),
      (route)-[:follows]->(swP:SwitchPosition)-[:target]->(sw:Switch)
WHERE route.active = true
  AND semaphore.signal = 'GO'
  AND sw.currentPosition <> swP.position
RETURN semaphore, route, swP, sw, sw.currentPosition AS currentPosition, swP.position AS position

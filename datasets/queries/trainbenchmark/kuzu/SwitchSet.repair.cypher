// Kùzu version of ../SwitchSet.repair.cypher: the same statement (the switch is set to the
// position the route follows).
MATCH (route:Route)-[:entry]->(semaphore:Semaphore),
      (route)-[:follows]->(swP:SwitchPosition)-[:target]->(sw:Switch)
WHERE route.active = true
  AND semaphore.signal = 'GO'
  AND sw.currentPosition <> swP.position
SET sw.currentPosition = swP.position

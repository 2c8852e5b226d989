// Train Benchmark SwitchSet: an active route whose entry semaphore shows GO follows a switch
// position that its switch is not set to.
MATCH (route:Route)-[:entry]->(semaphore:Semaphore),
      (route)-[:follows]->(swP:SwitchPosition)-[:target]->(sw:Switch)
WHERE route.active = true
  AND semaphore.signal = 'GO'
  AND sw.currentPosition <> swP.position
RETURN semaphore, route, swP, sw, sw.currentPosition AS currentPosition, swP.position AS position

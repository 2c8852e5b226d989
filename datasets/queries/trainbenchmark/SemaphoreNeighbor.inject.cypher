// Train Benchmark SemaphoreNeighbor inject: routes lose their entry semaphore (the `entry`
// reference is removed). Ten at a time: the first ten routes by id that still have an entry.
MATCH (route:Route)-[e:entry]->(:Semaphore)
WITH route, e ORDER BY route.id LIMIT 10
DELETE e

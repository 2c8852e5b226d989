// Train Benchmark PosLength inject: segments get the length 0. As in the benchmark's fixed inject
// strategy, ten at a time: the first ten by id among those whose length is still positive, so runs
// are reproducible and each run injects new faults.
MATCH (segment:Segment)
WHERE segment.length > 0
WITH segment ORDER BY segment.id LIMIT 10
SET segment.length = 0

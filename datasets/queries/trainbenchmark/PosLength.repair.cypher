// Train Benchmark PosLength repair: make every non-positive segment length positive.
MATCH (segment:Segment)
WHERE segment.length <= 0
SET segment.length = -segment.length + 1

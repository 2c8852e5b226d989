// Train Benchmark PosLength: segments whose length is not positive.
MATCH (segment:Segment)
WHERE segment.length <= 0
RETURN segment, segment.length AS length

// Kùzu version of ../PosLength.cypher: the same text (one node pattern, nothing to translate).
// The runner counts the rows: it replaces the final RETURN by RETURN count(*).
MATCH (segment:Segment)
WHERE segment.length <= 0
RETURN segment, segment.length AS length

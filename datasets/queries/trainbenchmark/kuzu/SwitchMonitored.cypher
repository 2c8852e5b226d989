// Kùzu version of ../SwitchMonitored.cypher: the same text (Kùzu has EXISTS { MATCH ... }).
// The runner counts the rows: it replaces the final RETURN by RETURN count(*).
MATCH (sw:Switch)
WHERE NOT EXISTS { MATCH (sw)-[:monitoredBy]->(:Sensor) }
RETURN sw

// Train Benchmark SwitchMonitored: switches that no sensor monitors.
MATCH (sw:Switch)
WHERE NOT EXISTS { MATCH (sw)-[:monitoredBy]->(:Sensor) }
RETURN sw

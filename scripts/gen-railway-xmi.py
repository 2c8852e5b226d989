#!/usr/bin/env python3
"""Writes a synthetic Train-Benchmark-style railway model as EMF XMI (metamodel: railway.xcore of
the Train Benchmark), for load benchmarks of large files:

    scripts/gen-railway-xmi.py REGIONS OUT.xmi

Each region has 40 sensors and 400 track elements (one switch per 20 segments) in a connectsTo
chain, each monitored by one sensor; each region has one route requiring its sensors and following
its switches, entering at its own region's semaphore and exiting at the next region's. With more
than one region the chains form a ring: the last track element of region r connectsTo the first of
region (r + 1) % REGIONS, so route r neighbours route r + 1 as in the real benchmark (a route that
loses its entry semaphore is then a SemaphoreNeighbor fault). Deterministic (no randomness)."""
import sys

regions = int(sys.argv[1])
out = open(sys.argv[2], "w")
SENSORS, ELEMENTS = 40, 400
next_id = [1]


def new_id():
    next_id[0] += 1
    return next_id[0]


w = out.write
w('<?xml version="1.0" encoding="ASCII"?>\n')
w('<railway:RailwayContainer xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI" '
  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
  'xmlns:railway="http://www.semanticweb.org/ontologies/2015/trainbenchmark">\n')
for r in range(regions):
    switches = [e for e in range(ELEMENTS) if e % 20 == 0]
    req = " ".join(f"//@regions.{r}/@sensors.{s}" for s in range(SENSORS))
    w(f'  <routes id="{new_id()}" active="true" requires="{req}" '
      f'entry="//@regions.{r}/@elements.1/@semaphores.0" exit="//@regions.{(r + 1) % regions}/@elements.1/@semaphores.0">\n')
    for k, e in enumerate(switches):
        pos = ["", ' position="STRAIGHT"', ' position="DIVERGING"'][k % 3]
        w(f'    <follows id="{new_id()}"{pos} target="//@regions.{r}/@elements.{e}"/>\n')
    w('  </routes>\n')
for r in range(regions):
    w(f'  <regions id="{new_id()}">\n')
    for s in range(SENSORS):
        mon = " ".join(f"//@regions.{r}/@elements.{e}" for e in range(s * 10, s * 10 + 10))
        w(f'    <sensors id="{new_id()}" monitors="{mon}"/>\n')
    for e in range(ELEMENTS):
        if e + 1 < ELEMENTS:
            conn = f' connectsTo="//@regions.{r}/@elements.{e + 1}"'
        elif regions > 1:
            # The chains join up, as in the real benchmark: region r's last element leads into
            # region r+1's first, so route r (exiting at region r+1's semaphore) neighbours route
            # r+1 (entering there) and SemaphoreNeighbor can find faults once an entry is removed.
            conn = f' connectsTo="//@regions.{(r + 1) % regions}/@elements.0"'
        else:
            conn = ""
        mb = f' monitoredBy="//@regions.{r}/@sensors.{e // 10}"'
        if e % 20 == 0:
            cur = ["", ' currentPosition="STRAIGHT"', ' currentPosition="DIVERGING"'][e % 3]
            k = switches.index(e)
            w(f'    <elements xsi:type="railway:Switch" id="{new_id()}"{mb}{conn}{cur} '
              f'positions="//@routes.{r}/@follows.{k}"/>\n')
        elif e == 1:
            w(f'    <elements xsi:type="railway:Segment" id="{new_id()}" length="{(e * 37) % 1000 - 50}"{mb}{conn}>\n')
            w(f'      <semaphores id="{new_id()}" signal="GO"/>\n')
            w('    </elements>\n')
        else:
            w(f'    <elements xsi:type="railway:Segment" id="{new_id()}" length="{(e * 37) % 1000 - 50}"{mb}{conn}/>\n')
    w('  </regions>\n')
w('</railway:RailwayContainer>\n')
out.close()

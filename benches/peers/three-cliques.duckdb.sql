WITH acts AS (
  SELECT DISTINCT nconst AS p, tconst AS t FROM title_principals WHERE category IN ('actor', 'actress')
), cliques AS (
  SELECT a.p AS p1, b.p AS p2, c.p AS p3, count(*) AS shared
  FROM acts a
  JOIN acts b ON b.t = a.t AND a.p < b.p
  JOIN acts c ON c.t = a.t AND b.p < c.p
  GROUP BY a.p, b.p, c.p
  HAVING count(*) >= 3
)
SELECT count(*) AS triples, sum(shared) AS embeddings FROM cliques

-- Co-star cycles counted without enumerating them. For persons p1, p2, p3 let A, B, C be the titles
-- shared by (p1, p2), (p2, p3), (p3, p1) and X the titles of all three (A ∩ B = B ∩ C = C ∩ A = X).
-- Distinct (t1, t2, t3) in A × B × C, by inclusion–exclusion: |A||B||C| − |X|(|A| + |B| + |C|) + 2|X|.
-- All six orders of a person triple give the same value: summed over p1 < p2 < p3, times 6.
-- Credits as DISTINCT (person, title) pairs; ids as integers (the digits of nm…/tt…).
WITH acts AS (
  SELECT DISTINCT CAST(substr(nconst, 3) AS INTEGER) AS p, CAST(substr(tconst, 3) AS INTEGER) AS t
  FROM title_principals WHERE category IN ('actor', 'actress')
), pairs AS (
  SELECT a.p AS p, b.p AS q, count(*) AS n
  FROM acts a JOIN acts b ON b.t = a.t AND a.p < b.p
  GROUP BY a.p, b.p
), common AS (
  SELECT a.p AS p1, b.p AS p2, c.p AS p3, count(*) AS x
  FROM acts a
  JOIN acts b ON b.t = a.t AND a.p < b.p
  JOIN acts c ON c.t = a.t AND b.p < c.p
  GROUP BY a.p, b.p, c.p
), triangles AS (
  SELECT ab.p AS p1, ab.q AS p2, bc.q AS p3, ab.n AS a, bc.n AS b, ac.n AS c
  FROM pairs ab
  JOIN pairs bc ON bc.p = ab.q
  JOIN pairs ac ON ac.p = ab.p AND ac.q = bc.q
)
SELECT 6 * sum(t.a * t.b * t.c - coalesce(x.x, 0) * (t.a + t.b + t.c) + 2 * coalesce(x.x, 0)) AS embeddings
FROM triangles t
LEFT JOIN common x ON x.p1 = t.p1 AND x.p2 = t.p2 AND x.p3 = t.p3

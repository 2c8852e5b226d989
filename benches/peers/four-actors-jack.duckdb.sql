-- Credits as distinct (person, title) pairs, as gemp's anonymous relationships are existence checks;
-- SQL joins are homomorphic, so injectivity is the explicit <> conditions.
-- Ids as integers (the digits of nm…/tt…): DuckDB joins and compares them faster than strings.
WITH acts AS (
  SELECT DISTINCT CAST(substr(c.nconst, 3) AS INTEGER) AS p, CAST(substr(c.tconst, 3) AS INTEGER) AS t
  FROM title_principals c JOIN title_basics b ON b.tconst = c.tconst
  WHERE c.category = 'actor' AND b.titleType = 'movie'
), jack AS (
  SELECT CAST(substr(nconst, 3) AS INTEGER) AS p FROM name_basics WHERE contains(primaryName, 'Jack')
)
SELECT count(*) AS embeddings
FROM acts a1 JOIN jack ON jack.p = a1.p
JOIN acts a2 ON a2.t = a1.t
JOIN acts a3 ON a3.t = a1.t
JOIN acts a4 ON a4.t = a1.t
WHERE a2.p < a3.p AND a3.p < a4.p AND a1.p <> a2.p AND a1.p <> a3.p AND a1.p <> a4.p

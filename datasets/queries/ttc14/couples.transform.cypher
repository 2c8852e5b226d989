// TTC 2014 Movie Database Case, task 2: a Couple for every pair of persons who acted together in
// at least three movies, linked to both persons (p1, p2: p1 the one with the lower node id) and to
// their common movies (commonMovies), with the average rating of those movies (avgRating) and
// their number (numberOfCommonMovies). Run it once per model: a second run adds a second set of
// couples (the model has no Couple label before the first run to test against).
// Distinct pattern nodes bind distinct nodes (the case's definition; the factorised plans run it):
// gemp: semantics=isomorphism
MATCH (p1:Person)-[:ACTOR|ACTRESS]->(t:Title)<-[:ACTOR|ACTRESS]-(p2:Person)
WHERE id(p1) < id(p2)
WITH p1, p2, count(t) AS shared, avg(t.averageRating) AS rating
WHERE shared >= 3
CREATE (c:Couple {avgRating: rating, numberOfCommonMovies: shared}),
       (c)-[:p1]->(p1), (c)-[:p2]->(p2);

// Each couple's common movies.
MATCH (c:Couple)-[:p1]->(p1:Person)-[:ACTOR|ACTRESS]->(t:Title)<-[:ACTOR|ACTRESS]-(p2:Person)<-[:p2]-(c)
CREATE (c)-[:commonMovies]->(t)

// TTC 2014 Movie Database Case, extension task 1 for k = 3: a Clique for every three persons who
// all acted together in at least three movies, linked to the persons (persons) and to their common
// movies (commonMovies), with the average rating of those movies (avgRating) and their number
// (numberOfCommonMovies). Run it once per model, as the couples transformation.
// Distinct pattern nodes bind distinct nodes (the case's definition; the factorised plans run it):
// gemp: semantics=isomorphism
MATCH (p1:Person)-[:ACTOR|ACTRESS]->(t:Title)<-[:ACTOR|ACTRESS]-(p2:Person),
      (p3:Person)-[:ACTOR|ACTRESS]->(t)
WHERE id(p1) < id(p2) AND id(p2) < id(p3)
WITH p1, p2, p3, count(t) AS shared, avg(t.averageRating) AS rating
WHERE shared >= 3
CREATE (c:Clique {avgRating: rating, numberOfCommonMovies: shared}),
       (c)-[:persons]->(p1), (c)-[:persons]->(p2), (c)-[:persons]->(p3);

// Each clique's common movies: the titles all three of its persons acted in.
MATCH (c:Clique)-[:persons]->(p1:Person), (c)-[:persons]->(p2:Person), (c)-[:persons]->(p3:Person),
      (p1)-[:ACTOR|ACTRESS]->(t:Title), (p2)-[:ACTOR|ACTRESS]->(t), (p3)-[:ACTOR|ACTRESS]->(t)
WHERE id(p1) < id(p2) AND id(p2) < id(p3)
CREATE (c)-[:commonMovies]->(t)

//! The model-driven-engineering importers on small hand-written files, with the exact graphs
//! they must give: EMF XMI (fragment paths, multi-valued and id references, `href` proxies,
//! inheritance, defaults and opposites from an Xcore or Ecore metamodel), Neo4j-style CSV and
//! the JSON graph format (with an export round trip); bad input gives file and line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gemp::error::Error;
use gemp::io::metamodel::Metamodel;
use gemp::io::{json_graph, xmi, Format, LoadOptions};
use gemp::model::Model;

/// Labels (sorted) and properties (`Debug` of the typed value) of a node.
type NodeView = (Vec<String>, BTreeMap<String, String>);
/// Nodes by key, edges as sorted `(source key, type, target key)`.
type GraphView = (BTreeMap<String, NodeView>, Vec<(String, String, String)>);

/// A model as plain data: nodes by key, edges as sorted `(source key, type, target key)`.
fn view(m: &Model) -> GraphView {
    let mut nodes = BTreeMap::new();
    for n in 0..m.node_count() as u32 {
        let mut labels: Vec<String> = m
            .node_labels(n)
            .iter()
            .map(|&l| m.labels().name(l).unwrap().to_owned())
            .collect();
        labels.sort();
        let mut props = BTreeMap::new();
        if let Some(g) = m.group_of(n) {
            for c in &g.columns {
                let v = c.get((n - g.start) as usize);
                if !v.is_null() {
                    props.insert(c.name.clone(), format!("{:?}", v.to_owned()));
                }
            }
        }
        nodes.insert(m.node_key(n).unwrap().to_owned(), (labels, props));
    }
    let mut edges = Vec::new();
    for n in 0..m.node_count() as u32 {
        for e in m.out().range(n) {
            edges.push((
                m.node_key(n).unwrap().to_owned(),
                m.rel_types().name(m.out().types[e]).unwrap().to_owned(),
                m.node_key(m.out().neighbors[e]).unwrap().to_owned(),
            ));
        }
    }
    edges.sort();
    (nodes, edges)
}

fn node(labels: &[&str], props: &[(&str, &str)]) -> NodeView {
    let mut l: Vec<String> = labels.iter().map(|s| s.to_string()).collect();
    l.sort();
    (
        l,
        props
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

fn edges(list: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    let mut v: Vec<_> = list
        .iter()
        .map(|(a, t, b)| (a.to_string(), t.to_string(), b.to_string()))
        .collect();
    v.sort();
    v
}

const MINI_XCORE: &str = r#"
@Ecore(nsURI="http://example.org/mini")
package org.example.mini
abstract class Element { int ^id }
class Container {
    contains Region[] regions
    contains Route[] routes
}
class Region extends Element {
    contains Sensor[] sensors
    contains Track[] tracks
}
abstract class Track extends Element {
    refers Sensor[] monitoredBy opposite monitors
    refers Track[] connectsTo
}
class Segment extends Track { int length }
class Switch extends Track { Position current }
class Sensor extends Element { refers Track[] monitors opposite monitoredBy }
class Route extends Element {
    boolean active
    contains Step[] follows opposite route
    refers Sensor[] requires
}
class Step extends Element {
    Position position
    refers Route route opposite follows
    refers Switch target
}
enum Position { FAILURE = 0 STRAIGHT = 1 DIVERGING = 2 }
"#;

/// The same metamodel as Ecore XML.
const MINI_ECORE: &str = r##"<?xml version="1.0" encoding="UTF-8"?>
<ecore:EPackage xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xmlns:ecore="http://www.eclipse.org/emf/2002/Ecore" name="mini" nsURI="http://example.org/mini" nsPrefix="mini">
  <eClassifiers xsi:type="ecore:EClass" name="Element" abstract="true">
    <eStructuralFeatures xsi:type="ecore:EAttribute" name="id" eType="ecore:EDataType http://www.eclipse.org/emf/2002/Ecore#//EInt"/>
  </eClassifiers>
  <eClassifiers xsi:type="ecore:EClass" name="Container">
    <eStructuralFeatures xsi:type="ecore:EReference" name="regions" upperBound="-1" eType="#//Region" containment="true"/>
    <eStructuralFeatures xsi:type="ecore:EReference" name="routes" upperBound="-1" eType="#//Route" containment="true"/>
  </eClassifiers>
  <eClassifiers xsi:type="ecore:EClass" name="Region" eSuperTypes="#//Element">
    <eStructuralFeatures xsi:type="ecore:EReference" name="sensors" upperBound="-1" eType="#//Sensor" containment="true"/>
    <eStructuralFeatures xsi:type="ecore:EReference" name="tracks" upperBound="-1" eType="#//Track" containment="true"/>
  </eClassifiers>
  <eClassifiers xsi:type="ecore:EClass" name="Track" abstract="true" eSuperTypes="#//Element">
    <eStructuralFeatures xsi:type="ecore:EReference" name="monitoredBy" upperBound="-1" eType="#//Sensor" eOpposite="#//Sensor/monitors"/>
    <eStructuralFeatures xsi:type="ecore:EReference" name="connectsTo" upperBound="-1" eType="#//Track"/>
  </eClassifiers>
  <eClassifiers xsi:type="ecore:EClass" name="Segment" eSuperTypes="#//Track">
    <eStructuralFeatures xsi:type="ecore:EAttribute" name="length" eType="ecore:EDataType http://www.eclipse.org/emf/2002/Ecore#//EInt"/>
  </eClassifiers>
  <eClassifiers xsi:type="ecore:EClass" name="Switch" eSuperTypes="#//Track">
    <eStructuralFeatures xsi:type="ecore:EAttribute" name="current" eType="#//Position"/>
  </eClassifiers>
  <eClassifiers xsi:type="ecore:EClass" name="Sensor" eSuperTypes="#//Element">
    <eStructuralFeatures xsi:type="ecore:EReference" name="monitors" upperBound="-1" eType="#//Track" eOpposite="#//Track/monitoredBy"/>
  </eClassifiers>
  <eClassifiers xsi:type="ecore:EClass" name="Route" eSuperTypes="#//Element">
    <eStructuralFeatures xsi:type="ecore:EAttribute" name="active" eType="ecore:EDataType http://www.eclipse.org/emf/2002/Ecore#//EBoolean"/>
    <eStructuralFeatures xsi:type="ecore:EReference" name="follows" upperBound="-1" eType="#//Step" containment="true" eOpposite="#//Step/route"/>
    <eStructuralFeatures xsi:type="ecore:EReference" name="requires" upperBound="-1" eType="#//Sensor"/>
  </eClassifiers>
  <eClassifiers xsi:type="ecore:EClass" name="Step" eSuperTypes="#//Element">
    <eStructuralFeatures xsi:type="ecore:EAttribute" name="position" eType="#//Position"/>
    <eStructuralFeatures xsi:type="ecore:EReference" name="route" eType="#//Route" eOpposite="#//Route/follows"/>
    <eStructuralFeatures xsi:type="ecore:EReference" name="target" eType="#//Switch"/>
  </eClassifiers>
  <eClassifiers xsi:type="ecore:EEnum" name="Position">
    <eLiterals name="FAILURE"/>
    <eLiterals name="STRAIGHT" value="1"/>
    <eLiterals name="DIVERGING" value="2"/>
  </eClassifiers>
</ecore:EPackage>
"##;

/// Line 4 holds a multi-valued reference, line 5 a fragment path to a later element; the
/// segment has no `monitoredBy` (the sensor's `monitors` implies it) and the step no `position`
/// (EMF's default, FAILURE).
const MINI_XMI: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<mini:Container xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:mini="http://example.org/mini">
  <regions id="1">
    <sensors id="2" monitors="//@regions.0/@tracks.0 //@regions.0/@tracks.1"/>
    <tracks xsi:type="mini:Segment" id="3" length="5" connectsTo="//@regions.0/@tracks.1"/>
    <tracks xsi:type="mini:Switch" id="4" current="STRAIGHT" monitoredBy="//@regions.0/@sensors.0"/>
  </regions>
  <routes id="5" active="true" requires="//@regions.0/@sensors.0">
    <follows id="6" target="//@regions.0/@tracks.1"/>
  </routes>
</mini:Container>
"#;

const R: &str = "//@regions.0";
const S: &str = "//@regions.0/@sensors.0";
const SEG: &str = "//@regions.0/@tracks.0";
const SW: &str = "//@regions.0/@tracks.1";
const ROUTE: &str = "//@routes.0";
const STEP: &str = "//@routes.0/@follows.0";

fn strict() -> LoadOptions {
    LoadOptions {
        strict: true,
        ..Default::default()
    }
}

fn expected_with_metamodel() -> GraphView {
    let nodes: BTreeMap<String, NodeView> = [
        ("/", node(&["Container"], &[])),
        (R, node(&["Region", "Element"], &[("id", "Int(1)")])),
        (S, node(&["Sensor", "Element"], &[("id", "Int(2)")])),
        (
            SEG,
            node(
                &["Segment", "Track", "Element"],
                &[("id", "Int(3)"), ("length", "Int(5)")],
            ),
        ),
        (
            SW,
            node(
                &["Switch", "Track", "Element"],
                &[("id", "Int(4)"), ("current", "Str(\"STRAIGHT\")")],
            ),
        ),
        (
            ROUTE,
            node(
                &["Route", "Element"],
                &[("id", "Int(5)"), ("active", "Bool(true)")],
            ),
        ),
        (
            STEP,
            node(
                &["Step", "Element"],
                &[("id", "Int(6)"), ("position", "Str(\"FAILURE\")")],
            ),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let e = edges(&[
        ("/", "regions", R),
        ("/", "routes", ROUTE),
        (R, "sensors", S),
        (R, "tracks", SEG),
        (R, "tracks", SW),
        (S, "monitors", SEG),
        (S, "monitors", SW),
        (SEG, "connectsTo", SW),
        (SEG, "monitoredBy", S),
        (SW, "monitoredBy", S),
        (ROUTE, "requires", S),
        (ROUTE, "follows", STEP),
        (STEP, "target", SW),
        (STEP, "route", ROUTE),
    ]);
    (nodes, e)
}

#[test]
fn xmi_with_an_xcore_metamodel_gives_the_exact_graph() {
    let mm = Metamodel::from_xcore(MINI_XCORE).unwrap();
    let (m, report) = xmi::read_str(MINI_XMI, Some(&mm), &strict()).unwrap();
    assert_eq!(report.files[0].rows, 7);
    assert_eq!(view(&m), expected_with_metamodel());
}

#[test]
fn ecore_and_xcore_give_the_same_metamodel() {
    let x = Metamodel::from_xcore(MINI_XCORE).unwrap();
    let e = Metamodel::from_ecore(MINI_ECORE).unwrap();
    assert_eq!(x, e);
    let (m, _) = xmi::read_str(MINI_XMI, Some(&e), &strict()).unwrap();
    assert_eq!(view(&m), expected_with_metamodel());
}

#[test]
fn a_superclass_pattern_matches_subclasses() {
    let mm = Metamodel::from_xcore(MINI_XCORE).unwrap();
    let (m, _) = xmi::read_str(MINI_XMI, Some(&mm), &strict()).unwrap();
    let q = gemp::pattern::compile(
        "MATCH (t:Track)-[:monitoredBy]->(s:Sensor) RETURN t",
        &m,
        &Default::default(),
    )
    .unwrap();
    let out = gemp::engines::gemp::execute(&m, &q, &Default::default()).unwrap();
    assert_eq!(out.count, 2, "the segment and the switch are tracks");
    // The opposite completed from `monitors` lets the segment be matched from either side.
    let q = gemp::pattern::compile(
        "MATCH (s:Sensor)-[:monitors]->(t:Segment)-[:monitoredBy]->(s) RETURN t",
        &m,
        &Default::default(),
    )
    .unwrap();
    assert_eq!(
        gemp::engines::gemp::execute(&m, &q, &Default::default())
            .unwrap()
            .count,
        1
    );
}

#[test]
fn xmi_without_a_metamodel_infers_classes_references_and_types() {
    let (m, _) = xmi::read_str(MINI_XMI, None, &strict()).unwrap();
    let (nodes, e) = view(&m);
    // Classes from xsi:type, else the tag; no superclasses, no defaults, no opposites.
    assert_eq!(
        nodes[SEG],
        node(&["Segment"], &[("id", "Int(3)"), ("length", "Int(5)")])
    );
    assert_eq!(nodes[R].0, vec!["regions"]);
    assert_eq!(nodes[STEP], node(&["follows"], &[("id", "Int(6)")]));
    assert_eq!(nodes[ROUTE].1["active"], "Bool(true)");
    assert_eq!(nodes[SW].1["current"], "Str(\"STRAIGHT\")");
    let mut want = expected_with_metamodel().1;
    want.retain(|(a, t, _)| !(t == "route" || (t == "monitoredBy" && a == SEG)));
    assert_eq!(e, want);
}

/// Multi-root documents (`xmi:XMI`), `xmi:id` references (forward too), `href` children and
/// `#/1`-style fragments.
#[test]
fn xmi_ids_multiple_roots_and_href_references() {
    let text = r##"<?xml version="1.0" encoding="UTF-8"?>
<xmi:XMI xmi:version="2.0" xmlns:xmi="http://www.omg.org/XMI" xmlns:mini="http://example.org/mini">
  <mini:Sensor xmi:id="s1" id="1"/>
  <mini:Segment xmi:id="t1" id="2" monitoredBy="s1" connectsTo="t2 t1"/>
  <mini:Segment xmi:id="t2" id="3">
    <connectsTo href="#/1"/>
  </mini:Segment>
</xmi:XMI>
"##;
    for mm in [None, Some(Metamodel::from_xcore(MINI_XCORE).unwrap())] {
        let (m, _) = xmi::read_str(text, mm.as_ref(), &strict()).unwrap();
        let (nodes, e) = view(&m);
        assert_eq!(nodes.len(), 3);
        assert_eq!(nodes["/1"].1["xmi:id"], "Str(\"t1\")");
        let mut want = vec![
            ("/1", "monitoredBy", "/0"),
            ("/1", "connectsTo", "/2"),
            ("/1", "connectsTo", "/1"),
            ("/2", "connectsTo", "/1"),
        ];
        if mm.is_some() {
            want.push(("/0", "monitors", "/1"));
            assert_eq!(nodes["/1"].0, vec!["Element", "Segment", "Track"]);
            // Unset `length` takes its default.
            assert_eq!(nodes["/2"].1["length"], "Int(0)");
        }
        assert_eq!(e, edges(&want));
    }
}

/// Objects whose class has an ID attribute are referenced by its value, in Xcore and Ecore.
#[test]
fn xmi_references_by_id_attribute() {
    let xcore = "package q
class Net { contains Place[] places }
class Place { id String name refers Place[] next }";
    let ecore = r##"<ecore:EPackage xmlns:xmi="http://www.omg.org/XMI" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:ecore="http://www.eclipse.org/emf/2002/Ecore" name="q">
  <eClassifiers xsi:type="ecore:EClass" name="Net">
    <eStructuralFeatures xsi:type="ecore:EReference" name="places" upperBound="-1" eType="#//Place" containment="true"/>
  </eClassifiers>
  <eClassifiers xsi:type="ecore:EClass" name="Place">
    <eStructuralFeatures xsi:type="ecore:EAttribute" name="name" iD="true" eType="ecore:EDataType http://www.eclipse.org/emf/2002/Ecore#//EString"/>
    <eStructuralFeatures xsi:type="ecore:EReference" name="next" upperBound="-1" eType="#//Place"/>
  </eClassifiers>
</ecore:EPackage>"##;
    let text = r#"<q:Net xmlns:q="q">
  <places name="p1" next="p2 p3"/>
  <places name="p2"/>
  <places name="p3" next="p1"/>
</q:Net>"#;
    let (a, b) = (
        Metamodel::from_xcore(xcore).unwrap(),
        Metamodel::from_ecore(ecore).unwrap(),
    );
    assert_eq!(a, b);
    assert!(a.attribute("Place", "name").unwrap().is_id);
    let (m, _) = xmi::read_str(text, Some(&a), &strict()).unwrap();
    let (nodes, e) = view(&m);
    assert_eq!(
        nodes["//@places.1"],
        node(&["Place"], &[("name", "Str(\"p2\")")])
    );
    let mut want = edges(&[
        ("//@places.0", "next", "//@places.1"),
        ("//@places.0", "next", "//@places.2"),
        ("//@places.2", "next", "//@places.0"),
    ]);
    for i in 0..3 {
        want.push(("/".into(), "places".into(), format!("//@places.{i}")));
    }
    want.sort();
    assert_eq!(e, want);
    // Without the metamodel the names are plain strings: no ID attribute, no references.
    let (m, _) = xmi::read_str(text, None, &strict()).unwrap();
    assert_eq!(view(&m).1.len(), 3);
    assert_eq!(view(&m).0["//@places.0"].1["next"], "Str(\"p2 p3\")");
}

#[test]
fn bad_xml_is_an_error_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.xmi");
    std::fs::write(&p, "<?xml version=\"1.0\"?>\n<a>\n  <b x=\"1\">\n</a>\n").unwrap();
    let err = gemp::io::load(
        std::slice::from_ref(&p),
        Format::Xmi,
        &LoadOptions::default(),
    )
    .unwrap_err();
    match &err {
        Error::Parse { location, message } => {
            assert_eq!(location.file.as_deref(), Some(p.as_path()));
            assert_eq!(location.line, 4, "{err}");
            assert!(message.contains("malformed XML"), "{message}");
        }
        other => panic!("{other}"),
    }
    std::fs::write(&p, "<a>\n <b x='1' x='2'/>\n</a>").unwrap();
    let err = gemp::io::load(
        std::slice::from_ref(&p),
        Format::Xmi,
        &LoadOptions::default(),
    )
    .unwrap_err();
    assert!(
        err.to_string().starts_with(&format!("{}:2", p.display())),
        "{err}"
    );
    std::fs::write(&p, "<a>\n <b>\n").unwrap();
    let err = gemp::io::load(
        std::slice::from_ref(&p),
        Format::Xmi,
        &LoadOptions::default(),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("not closed") || err.to_string().contains(":3"),
        "{err}"
    );
}

#[test]
fn unresolved_references_and_bad_values_are_reported_with_their_line() {
    let mm = Metamodel::from_xcore(MINI_XCORE).unwrap();
    let text = MINI_XMI
        .replace(
            "connectsTo=\"//@regions.0/@tracks.1\"",
            "connectsTo=\"//@regions.0/@tracks.7\"",
        )
        .replace("current=\"STRAIGHT\"", "current=\"SIDEWAYS\"");
    let (m, report) = xmi::read_str(&text, Some(&mm), &LoadOptions::default()).unwrap();
    let got: Vec<(u64, &str)> = report
        .malformed
        .iter()
        .map(|b| (b.line, b.message.as_str()))
        .collect();
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].0, 6);
    assert!(
        got[0]
            .1
            .contains("`SIDEWAYS` is not a valid literal of Position"),
        "{got:?}"
    );
    assert_eq!(got[1].0, 5);
    assert!(got[1].1.contains("`//@regions.0/@tracks.7`"), "{got:?}");
    assert_eq!(view(&m).1.len(), 13, "the dangling connectsTo is skipped");
    let err = xmi::read_str(&text, Some(&mm), &strict()).unwrap_err();
    assert!(err.to_string().starts_with("<memory>:6:"), "{err}");
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn neo4j_csv_directory_gives_the_exact_graph() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "people-Person.csv",
        "id:ID,name,age:INT,score:DOUBLE,active:BOOLEAN,tags:STRING[],:LABEL\n\
         p1,Ann,31,1.5,true,a;b,Person;Employee\n\
         p2,\"Bob, Jr.\",,2,false,,\n",
    );
    write(
        d,
        "Movie.csv",
        "movieId:ID(Movie),title,year:LONG\n1,Up,2009\n",
    );
    write(d, "knows.csv", ":START_ID,:END_ID,since:INT\np1,p2,2001\n");
    write(
        d,
        "roles.csv",
        ":START_ID,:END_ID(Movie),:TYPE,role\np1,1,ACTED_IN,Carl\np2,1,DIRECTED,\n",
    );
    write(d, "notes.txt", "not a csv file: ignored in a directory");
    let (m, report) = gemp::io::load(&[d.to_path_buf()], Format::Auto, &strict()).unwrap();
    assert_eq!(report.dangling_nodes, 0);
    let (nodes, e) = view(&m);
    let want: BTreeMap<String, NodeView> = [
        (
            "p1",
            node(
                &["Employee", "Person"],
                &[
                    ("id", "Str(\"p1\")"),
                    ("name", "Str(\"Ann\")"),
                    ("age", "Int(31)"),
                    ("score", "Float(1.5)"),
                    ("active", "Bool(true)"),
                    ("tags", "Str(\"[\\\"a\\\",\\\"b\\\"]\")"),
                ],
            ),
        ),
        (
            // An empty `:LABEL` field is no label (the file name applies without the column).
            "p2",
            node(
                &[],
                &[
                    ("id", "Str(\"p2\")"),
                    ("name", "Str(\"Bob, Jr.\")"),
                    ("score", "Float(2.0)"),
                    ("active", "Bool(false)"),
                ],
            ),
        ),
        (
            "Movie:1",
            node(
                &["Movie"],
                &[
                    ("movieId", "Str(\"1\")"),
                    ("title", "Str(\"Up\")"),
                    ("year", "Int(2009)"),
                ],
            ),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(nodes, want);
    assert_eq!(
        e,
        edges(&[
            ("p1", "knows", "p2"),
            ("p1", "ACTED_IN", "Movie:1"),
            ("p2", "DIRECTED", "Movie:1"),
        ])
    );
    let knows = m.rel_types().get("knows").unwrap();
    let p1 = m.node_by_key("p1").unwrap();
    let r = m.out().range_of_type(p1, knows).start as u32;
    assert_eq!(
        m.edge_property(r, "since"),
        gemp::model::ValueRef::Int(2001)
    );
}

#[test]
fn neo4j_csv_with_a_metamodel_types_labels_and_opposites() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mm = write(d, "mini.xcore", MINI_XCORE);
    let files = vec![
        write(
            d,
            "m-Switch.csv",
            "\"id:ID\",\"current\"\n\"4\",\"STRAIGHT\"\n",
        ),
        // A byte-order mark before the header is skipped.
        write(d, "m-Sensor.csv", "\u{feff}\"id:ID\"\n\"2\"\n"),
        write(
            d,
            "m-monitoredBy.csv",
            "\"id:START_ID\",\"id:END_ID\"\n\"4\",\"2\"\n",
        ),
    ];
    let (m, _) =
        gemp::io::load_with_metamodel(&files, Format::Neo4jCsv, Some(&mm), &strict()).unwrap();
    let (nodes, e) = view(&m);
    assert_eq!(
        nodes["4"],
        node(
            &["Switch", "Track", "Element"],
            &[("id", "Int(4)"), ("current", "Str(\"STRAIGHT\")")]
        )
    );
    assert_eq!(
        e,
        edges(&[("4", "monitoredBy", "2"), ("2", "monitors", "4")])
    );
}

#[test]
fn bad_csv_rows_are_reported_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "Thing.csv",
        "id:ID,n:INT\nx,1\ny,notanint\nz,1,extra\n\"w,2\n",
    );
    let (m, report) = gemp::io::load(
        std::slice::from_ref(&p),
        Format::Neo4jCsv,
        &LoadOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let lines: Vec<u64> = report.malformed.iter().map(|b| b.line).collect();
    assert_eq!(lines, vec![3, 4, 5], "{:?}", report.malformed);
    assert!(report.malformed[0]
        .message
        .contains("`notanint` is not a valid int"));
    assert_eq!(m.node_count(), 1);
    let err = gemp::io::load(std::slice::from_ref(&p), Format::Neo4jCsv, &strict()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{}:3: `notanint` is not a valid int for `n`", p.display())
    );
    let h = write(dir.path(), "Odd.csv", "id:ID,when:INSTANT\n1,now\n");
    let err = gemp::io::load(std::slice::from_ref(&h), Format::Neo4jCsv, &strict()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:1: column `when:INSTANT`: unknown type `INSTANT`",
            h.display()
        )
    );
    let n = write(dir.path(), "none.csv", "a,b\n1,2\n");
    let err = gemp::io::load(std::slice::from_ref(&n), Format::Neo4jCsv, &strict()).unwrap_err();
    assert!(err.to_string().contains("neither a node file"), "{err}");
}

const JSON: &str = r#"{
  "nodes": [
    {"id": "n1", "labels": ["Task"], "properties": {"name": "cut", "amount": 2, "obj": {"a": 1}, "none": null}},
    {"id": 2, "labels": ["Task", "Step"], "properties": {"amount": 2.5, "done": true, "list": [1, "x"]}},
    {"id": "x"}
  ],
  "edges": [
    {"source": "n1", "target": "2", "type": "CONTROL_FLOW", "properties": {"w": 0.5}},
    {"source": 2, "target": "n1", "type": "BACK"},
    {"source": "x", "target": "y", "type": "DANGLING"}
  ]
}"#;

#[test]
fn json_graph_gives_the_exact_graph() {
    let (m, report) = json_graph::read_str(JSON, None).unwrap();
    assert_eq!(report.dangling_nodes, 1);
    let (nodes, e) = view(&m);
    assert_eq!(
        nodes["n1"],
        node(
            &["Task"],
            &[
                ("name", "Str(\"cut\")"),
                ("amount", "Float(2.0)"),
                ("obj", "Str(\"{\\\"a\\\":1}\")"),
            ]
        )
    );
    assert_eq!(
        nodes["2"],
        node(
            &["Step", "Task"],
            &[
                ("amount", "Float(2.5)"),
                ("done", "Bool(true)"),
                ("list", "Str(\"[1,\\\"x\\\"]\")"),
            ]
        )
    );
    assert_eq!(nodes["x"], node(&[], &[]));
    assert_eq!(nodes["y"], node(&[], &[]));
    assert_eq!(
        e,
        edges(&[
            ("n1", "CONTROL_FLOW", "2"),
            ("2", "BACK", "n1"),
            ("x", "DANGLING", "y"),
        ])
    );
}

#[test]
fn json_export_round_trips() {
    let (m, _) = json_graph::read_str(JSON, None).unwrap();
    let mut text = Vec::new();
    json_graph::write(&m, &mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    let (back, _) = json_graph::read_str(&text, None).unwrap();
    assert_eq!(view(&back), view(&m));
    let w = back.edge_columns().iter().find(|c| c.name == "w").unwrap();
    assert_eq!(w.non_null_count(), 1);
    // XMI with a metamodel survives a JSON round trip too.
    let mm = Metamodel::from_xcore(MINI_XCORE).unwrap();
    let (x, _) = xmi::read_str(MINI_XMI, Some(&mm), &strict()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("mini.json");
    json_graph::write_file(&x, &p).unwrap();
    let (back, _) = gemp::io::load(&[p], Format::Auto, &strict()).unwrap();
    assert_eq!(view(&back), expected_with_metamodel());
}

#[test]
fn neo4j_csv_export_round_trips() {
    let mm = Metamodel::from_xcore(MINI_XCORE).unwrap();
    let (x, _) = xmi::read_str(MINI_XMI, Some(&mm), &strict()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let files = gemp::io::neo4j_csv::write_dir(&x, dir.path()).unwrap();
    assert_eq!(
        files.len(),
        7 + 11,
        "one file per primary label and per type"
    );
    let (back, report) =
        gemp::io::load(&[dir.path().to_path_buf()], Format::Auto, &strict()).unwrap();
    assert_eq!(report.dangling_nodes, 0);
    assert_eq!(view(&back), expected_with_metamodel());
    // The primary label stays first, so nodes keep their property groups.
    let seg = back.node_by_key(SEG).unwrap();
    let g = back.group_of(seg).unwrap();
    assert_eq!(back.labels().name(g.label), Some("Segment"));
}

#[test]
fn bad_json_is_an_error_with_line_and_column() {
    let err = json_graph::read_str("{\"nodes\": [\n  {\"id\": \"a\",}\n]}", None).unwrap_err();
    match err {
        Error::Parse { location, .. } => assert_eq!((location.line, location.column), (2, 14)),
        other => panic!("{other}"),
    }
    let err = json_graph::read_str(r#"{"edges": [{"source": 1, "target": 2}]}"#, None).unwrap_err();
    assert!(err.to_string().contains("missing field `type`"), "{err}");
    let err = json_graph::read_str(
        r#"{"nodes": [{"id": 1, "properties": {"a": 1}}, {"id": 2, "properties": {"a": "s"}}]}"#,
        None,
    )
    .unwrap_err();
    assert!(err.to_string().contains("property `a`"), "{err}");
}

#[test]
fn formats_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let x = write(d, "m.xmi", MINI_XMI);
    let mm = write(d, "m.xcore", MINI_XCORE);
    let j = write(d, "g.json", JSON);
    let c = write(d, "Person.csv", "id:ID\n1\n");
    let detect = |p: &[PathBuf]| gemp::io::format::detect(p).unwrap();
    assert_eq!(detect(&[mm.clone(), x.clone()]), Format::Xmi);
    assert_eq!(detect(std::slice::from_ref(&j)), Format::Json);
    assert_eq!(detect(std::slice::from_ref(&c)), Format::Neo4jCsv);
    // A metamodel among the inputs is used as such.
    let (m, _) = gemp::io::load(&[mm, x], Format::Auto, &strict()).unwrap();
    assert_eq!(view(&m), expected_with_metamodel());
    // A directory holding XMI, its metamodel, JSON and CSV loads as XMI with that metamodel,
    // reading only its .xmi files.
    let (m, _) = gemp::io::load(&[d.to_path_buf()], Format::Auto, &strict()).unwrap();
    assert_eq!(view(&m), expected_with_metamodel());
}

/// A chain of `depth` nested `<c>` elements under a root; the innermost refers back to the first
/// `c` by path and the first `c` refers to the innermost by its full path.
fn deep_xmi(depth: usize) -> String {
    let mut deepest = String::from("/");
    for _ in 0..depth {
        deepest.push_str("/@c.0");
    }
    let mut t =
        String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<m:Root xmlns:m=\"x\">\n");
    for d in 0..depth {
        if d == 0 {
            t.push_str(&format!("<c down=\"{deepest}\">\n"));
        } else if d + 1 == depth {
            t.push_str("<c up=\"//@c.0\">\n");
        } else {
            t.push_str("<c>\n");
        }
    }
    for _ in 0..depth {
        t.push_str("</c>\n");
    }
    t.push_str("</m:Root>\n");
    t
}

#[test]
fn deeply_nested_xmi_loads_with_short_keys() {
    let depth = 5_000;
    let (m, report) = xmi::read_str(&deep_xmi(depth), None, &strict()).unwrap();
    assert_eq!(report.files[0].rows, depth as u64 + 1);
    assert_eq!(m.node_count(), depth + 1);
    // One containment edge per `c`, plus `down` and `up`.
    assert_eq!(m.edge_count(), depth + 2);
    // Keys stay short: shallow elements keep their path, deep ones get `/~<n>`.
    let total: usize = (0..m.node_count() as u32)
        .map(|n| m.node_key(n).unwrap().len())
        .sum();
    assert!(total < 20 * depth, "keys take {total} bytes");
    assert!(m.node_by_key("//@c.0/@c.0").is_some());
    let deepest = m
        .node_by_key(&format!("/~{depth}"))
        .expect("compact key of the innermost");
    let first = m.node_by_key("//@c.0").unwrap();
    let out = m.out();
    let ty = |e: usize| m.rel_types().name(out.types[e]).unwrap().to_owned();
    let down: Vec<u32> = out
        .range(first)
        .filter(|&e| ty(e) == "down")
        .map(|e| out.neighbors[e])
        .collect();
    assert_eq!(down, vec![deepest], "a full-depth path resolves");
    let up: Vec<u32> = out
        .range(deepest)
        .filter(|&e| ty(e) == "up")
        .map(|e| out.neighbors[e])
        .collect();
    assert_eq!(up, vec![first]);
    // A snapshot of it stays small too (linear in the elements).
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().join("deep.gemp");
    gemp::model::snapshot::write(&m, &snap).unwrap();
    let size = std::fs::metadata(&snap).unwrap().len();
    assert!(size < 200 * depth as u64, "snapshot of {size} bytes");
}

#[test]
fn a_deep_path_to_a_missing_element_is_unresolved() {
    let text = deep_xmi(300).replace("<c up=\"//@c.0\">", "<c up=\"//@c.0/@c.1\">");
    let (_, report) = xmi::read_str(&text, None, &LoadOptions::default()).unwrap();
    assert_eq!(report.malformed_count(), 1, "{:?}", report.malformed);
    let err = xmi::read_str(&text, None, &strict()).unwrap_err();
    assert!(err.to_string().starts_with("<memory>:302:"), "{err}");
}

#[test]
fn an_unterminated_csv_quote_skips_only_its_line() {
    let dir = tempfile::tempdir().unwrap();
    // Line 3 opens a quote that never closes; the rows after it still load.
    let p = write(
        dir.path(),
        "Thing.csv",
        "id:ID,name\na,one\nb,\"two\nc,three\nd,\"fo,ur\"\ne,\"multi\nline\"\n",
    );
    let (m, report) = gemp::io::load(
        std::slice::from_ref(&p),
        Format::Neo4jCsv,
        &LoadOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.malformed_count(), 1, "{:?}", report.malformed);
    assert_eq!(report.malformed[0].line, 3);
    assert!(
        report.malformed[0]
            .message
            .contains("quote at column 3 never closes"),
        "{:?}",
        report.malformed
    );
    let (nodes, _) = view(&m);
    let keys: Vec<&str> = nodes.keys().map(String::as_str).collect();
    assert_eq!(keys, vec!["a", "c", "d", "e"]);
    assert_eq!(nodes["d"].1["name"], "Str(\"fo,ur\")");
    assert_eq!(nodes["e"].1["name"], "Str(\"multi\\nline\")");
    assert_eq!(report.files[0].rows, 4);
    let err = gemp::io::load(std::slice::from_ref(&p), Format::Neo4jCsv, &strict()).unwrap_err();
    assert!(
        err.to_string().starts_with(&format!(
            "{}:3: the quote at column 3 never closes",
            p.display()
        )),
        "{err}"
    );
    // A quote that closes on a later line, but not where a field can end, is unterminated too.
    let q = write(
        dir.path(),
        "Other.csv",
        "id:ID,name\na,\"one\nb,\"two\",x\nc,three\n",
    );
    let (m, report) = gemp::io::load(
        std::slice::from_ref(&q),
        Format::Neo4jCsv,
        &LoadOptions::default(),
    )
    .unwrap();
    let lines: Vec<u64> = report.malformed.iter().map(|b| b.line).collect();
    assert_eq!(lines, vec![2, 3], "{:?}", report.malformed);
    assert_eq!(view(&m).0.keys().collect::<Vec<_>>(), vec!["c"]);
}

#[test]
fn dangling_references_fail_strict_loads_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    // Neo4j CSV: a relationship to an id no node file defines.
    let csv = dir.path().join("csv");
    std::fs::create_dir(&csv).unwrap();
    write(&csv, "Person.csv", "id:ID,name\np1,Ann\n");
    let rel = write(&csv, "KNOWS.csv", ":START_ID,:END_ID\np1,p1\np1,p9\n");
    let (m, report) = gemp::io::load(
        std::slice::from_ref(&csv),
        Format::Neo4jCsv,
        &LoadOptions::default(),
    )
    .unwrap();
    assert_eq!((m.edge_count(), report.dangling_nodes), (2, 1));
    let err = gemp::io::load(std::slice::from_ref(&csv), Format::Neo4jCsv, &strict()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:3: dangling reference: :END_ID `p9` is not defined by a node file",
            rel.display()
        )
    );
    // JSON: the error names the line and column of the edge.
    let text = "{\"nodes\": [{\"id\": \"a\"}],\n \"edges\": [\n  {\"source\": \"a\", \"target\": \"a\", \"type\": \"T\"},\n  {\"source\": \"a\", \"target\": \"zz\", \"type\": \"T\"}]}\n";
    let (m, report) = json_graph::read_str(text, None).unwrap();
    assert_eq!((m.edge_count(), report.dangling_nodes), (2, 1));
    let err = json_graph::read_str_with(text, None, &strict()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "<memory>:4:3: edge 2: dangling reference: target `zz` is not the id of a node"
    );
    let j = write(dir.path(), "g.json", text);
    let err = gemp::io::load(std::slice::from_ref(&j), Format::Json, &strict()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("{}:4:3: edge 2", j.display())),
        "{err}"
    );
    // A repeated node id is reported with its line.
    let dup = "{\"nodes\": [{\"id\": 1},\n {\"id\": \"1\"}]}";
    let err = json_graph::read_str_with(dup, None, &strict()).unwrap_err();
    assert_eq!(err.to_string(), "<memory>:2:2: node 2 (`1`) repeats an id");
    // XMI: an unresolved reference (checked above and in the mini model tests).
    let x = deep_xmi(3).replace("<c up=\"//@c.0\">", "<c up=\"//@c.9\">");
    assert!(xmi::read_str(&x, None, &strict()).is_err());
}

/// Issue 31, item 6: non-finite floats (from a transform, a CSV) are exported to JSON as
/// `{"$float": "NaN" | "Infinity" | "-Infinity"}` (JSON numbers cannot hold them) and load back as
/// the same floats in a float column; they came back as strings, making the column a string column.
/// A string `"NaN"` stays a string; an object that is not exactly that form stays its JSON text.
#[test]
fn non_finite_floats_round_trip_through_json() {
    use gemp::model::{ModelBuilder, PropType, ValueRef};
    let mut b = ModelBuilder::new();
    let x = b.node_property("x");
    let s = b.node_property("s");
    let w = b.edge_property("w");
    let values = [1.5, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.25];
    let nodes: Vec<u32> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let n = b.add_node(&format!("n{i}"), &["P"]);
            b.set_node_property(n, x, ValueRef::Float(v)).unwrap();
            b.set_node_property(n, s, ValueRef::Str(["NaN", "{\"$float\":\"NaN\"}"][i % 2]))
                .unwrap();
            n
        })
        .collect();
    let r = b.rel_type("R");
    for (i, &v) in values.iter().enumerate().skip(1) {
        let e = b.add_edge(nodes[i - 1], nodes[i], r).unwrap();
        b.set_edge_property(e, w, ValueRef::Float(v)).unwrap();
    }
    let m = b.freeze().unwrap();
    let mut text = Vec::new();
    json_graph::write(&m, &mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.contains(r#"{"id":"n1","labels":["P"],"properties":{"x":{"$float":"NaN"},"s":"{\"$float\":\"NaN\"}"}}"#),
        "{text}"
    );
    assert!(text.contains(r#""x":{"$float":"Infinity"}"#), "{text}");
    assert!(text.contains(r#""x":{"$float":"-Infinity"}"#), "{text}");
    let (back, _) = json_graph::read_str(&text, None).unwrap();
    let column = |m: &Model, name: &str| {
        m.groups()[0]
            .columns
            .iter()
            .find(|c| c.name == name)
            .unwrap()
            .prop_type()
    };
    assert_eq!(column(&back, "x"), PropType::Float);
    assert_eq!(column(&back, "s"), PropType::Str);
    let bits = |m: &Model, name: &str| -> Vec<String> {
        (0..values.len())
            .map(|i| {
                let n = m.node_by_key(&format!("n{i}")).unwrap();
                format!("{:?}", m.node_property(n, name))
            })
            .collect()
    };
    assert_eq!(bits(&back, "x"), bits(&m, "x"));
    assert_eq!(bits(&back, "s"), bits(&m, "s"));
    let ws = |m: &Model| -> Vec<String> {
        (0..m.edge_count() as u32)
            .map(|e| format!("{:?}", m.edge_property(e, "w")))
            .collect()
    };
    assert_eq!(ws(&back), ws(&m));
    assert_eq!(back.edge_columns()[0].prop_type(), PropType::Float);
    // Hand-written input: the other spellings, and objects that are not the form.
    let (h, _) = json_graph::read_str(
        r#"{"nodes": [{"id": "a", "properties": {"p": {"$float": "inf"}, "q": {"$float": "1.5"},
            "r": {"$float": "NaN", "other": 1}}}]}"#,
        None,
    )
    .unwrap();
    let a = h.node_by_key("a").unwrap();
    assert_eq!(format!("{:?}", h.node_property(a, "p")), "Float(inf)");
    assert_eq!(
        format!("{:?}", h.node_property(a, "q")),
        r#"Str("{\"$float\":\"1.5\"}")"#
    );
    assert_eq!(
        format!("{:?}", h.node_property(a, "r")),
        r#"Str("{\"$float\":\"NaN\",\"other\":1}")"#
    );
}

/// Issue 31, item 16: a byte-order mark before a JSON graph is skipped (it was a bare "expected
/// value at line 1 column 1"), from memory and from a file.
#[test]
fn a_bom_before_a_json_graph_is_skipped() {
    let text = "\u{feff}{\"nodes\": [{\"id\": \"a\", \"labels\": [\"P\"]}]}";
    let (m, _) = json_graph::read_str(text, None).unwrap();
    assert_eq!(m.node_count(), 1);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bom.json");
    std::fs::write(&p, text).unwrap();
    let (m, _) = gemp::io::load(&[p], Format::Auto, &strict()).unwrap();
    assert_eq!(m.labels().name(m.node_labels(0)[0]), Some("P"));
    // An error after the mark still has its line and column.
    let err = json_graph::read_str("\u{feff}{\"nodes\": [\n  {\"id\": \"a\",}\n]}", None)
        .unwrap_err()
        .to_string();
    assert_eq!(err, "2:14: trailing comma at line 2 column 14");
}

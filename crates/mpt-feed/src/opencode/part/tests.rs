//! The part and message readers on rows as opencode writes them and on rows that probe each rule
//! of the reading, against what they gave written down once (`snapshots/`, a golden per row).

use super::*;

/// Rows shaped as opencode 1.18 writes them.
const REAL: &[&str] = &[
    r#"{"type":"text","text":"Plan the quince orchard\nlayout \"now\"","time":{"start":1767000000000,"end":1767000000001}}"#,
    r#"{"type":"text","text":"file body","synthetic":true}"#,
    r#"{"type":"step-start","snapshot":"4b825dc642cb6eb9a060e54bf8d69288fbee4904"}"#,
    r#"{"type":"reasoning","text":"hmm","metadata":{"anthropic":{"signature":"x=="}},"time":{"start":1,"end":2}}"#,
    r#"{"type":"tool","callID":"call_1","tool":"read","state":{"status":"completed","input":{"filePath":"/p/notes.txt","limit":3,"offset":-1.5e-3},"output":"<file>\n00001| the notes say: zebra\n</file>","title":"notes.txt","metadata":{"preview":"the notes","truncated":false,"list":[1,[2,{"a":null}],"\u00e9"]},"time":{"start":1,"end":2}}}"#,
    r#"{"type":"tool","callID":"c","tool":"task","state":{"status":"running","input":{"description":"look around","prompt":"REPLY:x","subagent_type":"general"},"time":{"start":1}}}"#,
    r#"{"type":"step-finish","reason":"stop","cost":0,"tokens":{"input":10,"output":5,"reasoning":0,"cache":{"read":0,"write":0}}}"#,
    r#"{"type":"file","mime":"image/png","filename":"a.png","url":"data:image/png;base64,iVBO"}"#,
    r#"{"type":"compaction","auto":true}"#,
    r#"{"type":"patch","hash":"abc","files":["/p/a.rs"]}"#,
    r#"{"role":"user","agent":"build","model":{"providerID":"p","modelID":"m"},"summary":{"diffs":[]}}"#,
    r#"{"role":"assistant","parentID":"msg_1","finish":"tool-calls","summary":true,"tokens":{"input":1}}"#,
];

/// Rows that probe each rule of serde_json's reading.
const TRICKY: &[&str] = &[
    // Whitespace, empty containers, trailing bytes.
    " \t\r\n{ \"type\" : \"text\" , \"text\" : \"a\" } \n",
    "{}",
    "{ }",
    "{} x",
    "{}\u{0c}",
    "{},",
    "",
    " ",
    "[]",
    "[ ]",
    "null",
    "\"text\"",
    "42",
    "{\"type\":\"text\"",
    "{\"type\"}",
    "{\"type\":}",
    "{\"type\" \"text\"}",
    "{type:\"text\"}",
    "{'type':'text'}",
    // Escapes, in a kept string, a compared string, a key and a skipped string.
    r#"{"type":"text","text":"tab\there \"q\" \\ \/ \b\f\n\r \u00e9\u65e5 \ud83d\ude80 \u0000"}"#,
    r#"{"type":"te\u0078t","text":"x"}"#,
    r#"{"t\u0079pe":"text","text":"x"}"#,
    r#"{"type":"text","text":"\ud83d"}"#,
    r#"{"type":"text","text":"\ude80"}"#,
    r#"{"type":"text","text":"\ud83d\u0041"}"#,
    r#"{"type":"text","text":"\ud83dx"}"#,
    r#"{"type":"text","text":"\ud83d\n"}"#,
    r#"{"type":"text","text":"\u12"}"#,
    r#"{"type":"text","text":"\u12g4"}"#,
    r#"{"type":"text","text":"\x"}"#,
    r#"{"type":"text","text":"\'"}"#,
    r#"{"type":"text","other":"\ud83d lone in a skipped value"}"#,
    r#"{"type":"text","other":{"\ud83d":"lone in a skipped key"}}"#,
    r#"{"\ud83d":"lone in a visited key"}"#,
    r#"{"type":"text","text":{"\ud83d":"lone in a lenient field's key"}}"#,
    r#"{"type":"text","text":["\ud83d lone in a lenient field's array"]}"#,
    r#"{"type":"text","other":"\q"}"#,
    r#"{"type":"text","other":"\u00"}"#,
    "{\"type\":\"text\",\"text\":\"raw\ttab\"}",
    "{\"type\":\"text\",\"other\":\"raw\nnewline\"}",
    "{\"type\":\"text\",\"text\":\"raw\u{7f} del and naïve über 日本語 🚀\"}",
    "{\"type\":\"text\",\"text\":\"unterminated",
    "{\"type\":\"text\",\"text\":\"ends in a backslash\\",
    // Lenient fields of other types.
    r#"{"type":1,"text":2,"synthetic":"true","ignored":1,"tool":null,"mime":["image/png"]}"#,
    r#"{"type":"text","text":null,"synthetic":true,"ignored":false}"#,
    r#"{"type":"text","text":"x","synthetic":{"a":[1,2,{"b":"c"}]},"ignored":[true]}"#,
    r#"{"type":["text"],"text":{"text":"x"}}"#,
    r#"{"type":"file","mime":"image/"}"#,
    r#"{"type":"file","mime":"IMAGE/png"}"#,
    r#"{"type":"file","mime":"\u0069mage/png"}"#,
    // Numbers.
    r#"{"type":"tool","n":0}"#,
    r#"{"type":"tool","n":-0}"#,
    r#"{"type":"tool","n":01}"#,
    r#"{"type":"tool","n":-}"#,
    r#"{"type":"tool","n":1.}"#,
    r#"{"type":"tool","n":.5}"#,
    r#"{"type":"tool","n":1.5e}"#,
    r#"{"type":"tool","n":1.5e+}"#,
    r#"{"type":"tool","n":1E-7}"#,
    r#"{"type":"tool","n":1e400}"#,
    r#"{"type":"tool","n":123456789012345678901234567890}"#,
    r#"{"type":"tool","n":+1}"#,
    r#"{"type":"tool","n":0x10}"#,
    r#"{"type":"tool","n":NaN}"#,
    r#"{"type":"tool","n":Infinity}"#,
    r#"{"type":"tool","text":-2.5E+3}"#,
    r#"{"type":"tool","text":01}"#,
    // Idents.
    r#"{"type":"tool","n":nul}"#,
    r#"{"type":"tool","n":nulll}"#,
    r#"{"type":"tool","n":True}"#,
    r#"{"type":"tool","synthetic":tru}"#,
    r#"{"type":"tool","state":nul}"#,
    // Commas.
    r#"{"type":"text",}"#,
    r#"{,"type":"text"}"#,
    r#"{"type":"text",,"text":"x"}"#,
    r#"{"type":"tool","n":[1,]}"#,
    r#"{"type":"tool","n":[,1]}"#,
    r#"{"type":"tool","n":[1 2]}"#,
    r#"{"type":"tool","n":{"a":1,}}"#,
    r#"{"type":"tool","n":{"a" 1}}"#,
    r#"{"type":"tool","n":{1:1}}"#,
    r#"{"type":"tool","text":[1,]}"#,
    r#"{"type":"tool","text":{"a":1,}}"#,
    r#"{"type":"tool","text":{"a":1 "b":2}}"#,
    // Duplicate keys: a field twice fails the row, another key twice does not.
    r#"{"type":"text","type":"tool"}"#,
    r#"{"type":"text","text":"a","text":"b"}"#,
    r#"{"type":"text","text":"a","te\u0078t":"b"}"#,
    r#"{"type":"text","state":null,"state":null}"#,
    r#"{"type":"text","other":1,"other":2}"#,
    r#"{"type":"tool","tool":"read","state":{"input":{"a":"1"},"input":{"b":"2"}}}"#,
    r#"{"type":"tool","tool":"read","state":{"input":{"path":"1","path":"2"}}}"#,
    r#"{"type":"tool","tool":"read","state":{"status":"a","status":"b","input":{}}}"#,
    // `state` and its `input` in every shape.
    r#"{"type":"tool","tool":"bash","state":null}"#,
    r#"{"type":"tool","tool":"bash","state":"done"}"#,
    r#"{"type":"tool","tool":"bash","state":5}"#,
    r#"{"type":"tool","tool":"bash","state":true}"#,
    r#"{"type":"tool","tool":"bash","state":{}}"#,
    r#"{"type":"tool","tool":"bash","state":[]}"#,
    r#"{"type":"tool","tool":"bash","state":[{"command":"ls"}]}"#,
    r#"{"type":"tool","tool":"bash","state":[null]}"#,
    r#"{"type":"tool","tool":"bash","state":[{"command":"ls"},1]}"#,
    r#"{"type":"tool","tool":"bash","state":{"input":null}}"#,
    r#"{"type":"tool","tool":"bash","state":{"input":"ls"}}"#,
    r#"{"type":"tool","tool":"bash","state":{"input":["ls"]}}"#,
    r#"{"type":"tool","tool":"bash","state":{"input":7}}"#,
    r#"{"type":"tool","tool":"bash","state":{"input":{"command":"ls","n":1,"o":{"a":"b"},"l":["x"],"t":true,"z":null}}}"#,
    r#"{"type":"tool","tool":"bash","state":{"input":{"command":"\ud83d"}}}"#,
    r#"{"type":"tool","tool":"bash","state":{"input":{"\ud83d":"x"}}}"#,
    r#"{"type":"tool","tool":"bash","state":{"input":{"o":{"\ud83d":"x"}}}}"#,
    r#"{"type":"tool","tool":"bash","state":{"input":{"o":{"k":"\ud83d"}}}}"#,
    r#"{"type":"tool","tool":"bash","state":{"input":{"command":"a\u0000b"}}}"#,
    // Arrays read positionally (type, text, synthetic, ignored, tool, state, mime).
    r#"["text","positional"]"#,
    r#"["text","positional",true]"#,
    r#"["tool",null,false,false,"read",{"input":{"filePath":"/a"}},null]"#,
    r#"["file",null,false,false,null,null,"image/png"]"#,
    r#"["file",null,false,false,null,null,"image/png",8]"#,
    r#"["text","x",]"#,
    r#"[,]"#,
    r#"["user",true]"#,
    r#"["user",true,1]"#,
    // Messages.
    r#"{"role":"user","role":"user"}"#,
    r#"{"role":"assistant","summary":"yes"}"#,
    r#"{"role":"\u0075ser"}"#,
    r#"{"role":{"a":"b"},"summary":[1]}"#,
];

/// A nest deeper than any recursion would survive, in a skipped value: serde skips it (iteratively).
fn deep(n: usize, close: bool) -> String {
    let mut s = String::from(r#"{"type":"text","text":"x","deep":"#);
    for i in 0..n {
        s.push_str(if i % 3 == 0 { "{\"k\":" } else { "[" });
    }
    s.push_str("null");
    if close {
        for i in (0..n).rev() {
            s.push(if i % 3 == 0 { '}' } else { ']' });
        }
    }
    s.push('}');
    s
}

/// What each reader makes of `data`, one line each.
fn read(data: &str) -> String {
    format!(
        "{data:?}\n  part:    {:?}\n  message: {:?}\n",
        PartData::parse(data),
        MessageData::parse(data)
    )
}

#[test]
fn each_row_reads_as_written_down() {
    let mut out = String::new();
    for data in REAL.iter().chain(TRICKY) {
        out.push_str(&read(data));
    }
    insta::assert_snapshot!("rows", out);
    let mut deep_out = String::new();
    for n in [1, 127, 128, 129, 300, 5000] {
        for close in [true, false] {
            let d = deep(n, close);
            deep_out.push_str(&format!(
                "{n} levels, closed {close}: part {:?}, message {:?}\n",
                PartData::parse(&d),
                MessageData::parse(&d)
            ));
        }
    }
    insta::assert_snapshot!("deep", deep_out);
}

#[test]
fn the_rules_that_matter_are_told_apart() {
    let kinds = |data: &str| PartData::parse(data).map(|p| p.kind);
    assert_eq!(kinds(REAL[4]), Some(Kind::Tool));
    assert_eq!(kinds(r#"{"type":"text","type":"tool"}"#), None);
    assert_eq!(
        kinds(r#"{"type":"text","other":"\ud83d"}"#),
        Some(Kind::Text)
    );
    assert_eq!(kinds(r#"{"\ud83d":"x"}"#), None);
    assert_eq!(kinds(r#"["text","positional"]"#), Some(Kind::Text));
    assert_eq!(kinds(r#"{"type":"tool","n":01}"#), None);
    let p = PartData::parse(REAL[4]).unwrap();
    assert_eq!(
        p.state.and_then(|s| s.input).unwrap().0,
        [("filePath".to_string(), "/p/notes.txt".to_string())]
    );
    let escaped = TRICKY.iter().find(|d| d.contains(r"tab\there")).unwrap();
    let t = PartData::parse(escaped).unwrap().text.0.unwrap();
    assert_eq!(t, "tab\there \"q\" \\ / \u{8}\u{c}\n\r é日 🚀 \0");
}

/// A tool's argument is cut as pi's are, on a char boundary.
#[test]
fn long_arguments_are_cut_as_pis_are() {
    let long = "é".repeat(450);
    let data =
        format!(r#"{{"type":"tool","tool":"write","state":{{"input":{{"content":"{long}"}}}}}}"#);
    let args = PartData::parse(&data)
        .unwrap()
        .state
        .unwrap()
        .input
        .unwrap()
        .0;
    assert_eq!(args[0].1.chars().count(), 400);
}

"""Non-blank lines each derive emits for the tasks example's facets, from rustc's expansion.

    RUSTC_BOOTSTRAP=1 cargo rustc --example tasks -- -Zunpretty=expanded > /tmp/tasks.rs
    python3 scripts/count_expansion.py /tmp/tasks.rs

`#[derive(Facet)]`: from the facet's `<Facet>Fields` struct (with its attributes) to serde's
first `const _` block; serde's `Serialize` + `Deserialize`: its `const _` blocks.
"""
import sys,re
lines=open(sys.argv[1]).read().split('\n')
for name in ['Team','User','Task']:
    s=[i for i,l in enumerate(lines) if re.match(r'(pub )?struct %sFields\b'%name,l)][0]
    while s>0 and (lines[s-1].startswith('#[') or lines[s-1].startswith('///')): s-=1
    c=[i for i in range(s,len(lines)) if lines[i].startswith('const _: () =')][0]
    while lines[c-1].startswith('#[') or lines[c-1].startswith('clippy'): c-=1
    j=c+1
    while j<len(lines) and not re.match(r'(fn |struct |enum |pub |///|faceteer|mod |use |async |#\[facet|#\[derive|#\[serde)',lines[j]): j+=1
    nb=lambda a,b: sum(1 for l in lines[a:b] if l.strip())
    f=nb(s,c); sd=nb(c,j)
    print(name, f, sd, round(f/sd,2))

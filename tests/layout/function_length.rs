//! No function in src/ is longer than a reader can follow in one go: 150
//! lines from `fn` to its closing brace, tests included.

use proc_macro2::Span;
use syn::visit::Visit;

use crate::source_tree::SourceTree;

const MAX_LINES: usize = 150;

#[test]
fn no_function_in_src_is_over_150_lines() {
    let tree = SourceTree::read();
    let mut long = Vec::new();
    for (file, ast) in &tree.files {
        let mut functions = Functions::default();
        functions.visit_file(ast);
        for (name, first, lines) in functions.found {
            if lines > MAX_LINES {
                long.push(format!("src/{file}:{first} {name} is {lines} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "over {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}

/// Every function with a body: its name, first line and length in lines.
#[derive(Default)]
struct Functions {
    found: Vec<(String, usize, usize)>,
}

impl Functions {
    fn note(&mut self, sig: &syn::Signature, body: &syn::Block) {
        let first = sig.fn_token.span.start().line;
        let last = Span::end(&body.brace_token.span.close()).line;
        self.found
            .push((sig.ident.to_string(), first, last + 1 - first));
    }
}

impl<'ast> Visit<'ast> for Functions {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.note(&f.sig, &f.block);
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.note(&f.sig, &f.block);
        syn::visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(body) = &f.default {
            self.note(&f.sig, body);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

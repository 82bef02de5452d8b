//! `select_priv_clean_pattern!`: rewrites a `select!` branch pattern so it can be matched
//! against `&output` to test whether the output fits, without moving out of it.
//!
//! Matching through a reference binds by reference (default binding modes), except where a
//! binding says `mut` or `ref` (or a reference pattern says `&mut`), which would move out
//! of the reference or not type-check. Removing those keywords keeps what the pattern
//! accepts and changes only how it binds, which the test ignores. The pattern itself is
//! then matched again, unchanged, against the owned output.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::Pat;

pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let parsed = syn::parse::Parser::parse2(Pat::parse_multi_with_leading_vert, input);
    match parsed {
        Ok(mut pat) => {
            clean(&mut pat);
            pat.into_token_stream()
        }
        Err(e) => e.to_compile_error(),
    }
}

fn clean(pat: &mut Pat) {
    match pat {
        Pat::Ident(ident) => {
            ident.by_ref = None;
            ident.mutability = None;
            if let Some((_, sub)) = &mut ident.subpat {
                clean(sub);
            }
        }
        Pat::Or(or) => or.cases.iter_mut().for_each(clean),
        Pat::Paren(p) => clean(&mut p.pat),
        Pat::Reference(r) => {
            r.mutability = None;
            clean(&mut r.pat);
        }
        Pat::Slice(s) => s.elems.iter_mut().for_each(clean),
        Pat::Struct(s) => s.fields.iter_mut().for_each(|f| clean(&mut f.pat)),
        Pat::Tuple(t) => t.elems.iter_mut().for_each(clean),
        Pat::TupleStruct(t) => t.elems.iter_mut().for_each(clean),
        Pat::Type(t) => clean(&mut t.pat),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn cleaned(input: TokenStream) -> String {
        expand(input).to_string()
    }

    #[test]
    fn strips_mut_and_ref_everywhere() {
        assert_eq!(cleaned(quote!(Some(mut x))), quote!(Some(x)).to_string());
        assert_eq!(
            cleaned(quote!((ref a, Foo { b: ref mut b, c }, [mut d, ..]))),
            quote!((a, Foo { b: b, c }, [d, ..])).to_string()
        );
        assert_eq!(
            cleaned(quote!(Ok(mut v @ 1..=3) | Err(mut v))),
            quote!(Ok(v @ 1..=3) | Err(v)).to_string()
        );
        assert_eq!(cleaned(quote!(&mut x)), quote!(&x).to_string());
        assert_eq!(cleaned(quote!(_)), quote!(_).to_string());
    }
}

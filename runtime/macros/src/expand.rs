//! Turning `async fn name() -> T { body }` into a plain function that runs `body`
//! on a freshly built runtime.
//!
//! The body is moved, token for token, into a nested `async fn` that carries the
//! user's own return type, and the outer function `block_on`s a call to it:
//!
//! ```text
//! fn name() -> T {
//!     async fn __runtime_body() -> T { body }
//!     let rt = <crate>::Builder::new_multi_thread().enable_all().build().expect(..);
//!     rt.block_on(__runtime_body())
//! }
//! ```
//!
//! Why a nested `async fn` rather than an `async` block: an `async` block's output
//! type is only learned after its body has been checked, so expressions whose type
//! comes from the expected return type (`return Err(Box::new(e))` coercing to
//! `Box<dyn Error>`, `Ok(Vec::new())`, `"x".into()`) would fail to infer. An
//! `async fn` declares it up front, exactly as the user wrote it, and `return`
//! keeps its meaning. The body's tokens keep their spans, so diagnostics in it
//! point at the user's code.
//!
//! A function other than `main` may take parameters and be generic under
//! `#[runtime::main]` (as under tokio's): the outer function takes each parameter as a
//! fresh `__runtime_argN` of the same type and passes them to the nested `async fn`,
//! which carries the user's patterns, generics and where clause:
//! `fn run<T: Tr>(__runtime_arg0: T) -> U { async fn __runtime_body<T: Tr>(x: T) -> U {
//! body } ... rt.block_on(__runtime_body::<T>(__runtime_arg0)) }`.
//!
//! A method taking `self` (any function but `main`) cannot move its body into a nested
//! function, which could not take the receiver or name `Self`: its body becomes an
//! `async` block in the method, `block_on`ed there, with its output type fixed up front
//! by an identity function bounded by `Future<Output = T>` (`typed_body`).
//!
//! Invariant: when anything is wrong (bad arguments, a missing `async`, parameters on
//! `main` or a test, ...) the output is the errors plus a *fallback* that never names the runtime: an
//! argument-less function holding the body in an uncalled nested `async fn`. The
//! body is still type-checked (IDEs keep working), and the user sees only the
//! relevant errors, not a cascade such as "`main` function not found".

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, FnArg, GenericParam, ReturnType, Signature, Token, Visibility};

use crate::args::{self, Config, Errors, Flavor, Kind};

/// A function item whose body is kept as raw tokens: it is never parsed, which is
/// cheaper and leaves syntax errors inside it to rustc, spanned as written.
struct Function {
    attrs: Vec<Attribute>,
    vis: Visibility,
    sig: Signature,
    body: Group,
}

impl Function {
    fn parse(kind: Kind, input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis = input.parse()?;
        let looks_like_fn = input.peek(Token![fn])
            || input.peek(Token![async])
            || input.peek(Token![const])
            || input.peek(Token![unsafe])
            || input.peek(Token![extern]);
        if !looks_like_fn {
            let msg = format!(
                "`{}` can only be applied to an `async fn`",
                kind.attr_name()
            );
            return Err(input.error(msg));
        }
        let sig = input.parse()?;
        let body = match input.parse::<Group>() {
            Ok(g) if matches!(g.delimiter(), Delimiter::Brace) => g,
            _ => return Err(input.error("expected the function's body `{ .. }`")),
        };
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the function's body"));
        }
        Ok(Function {
            attrs,
            vis,
            sig,
            body,
        })
    }
}

/// The whole expansion of `#[runtime::main]` / `#[runtime::test]`.
pub(crate) fn expand(kind: Kind, args: TokenStream, item: TokenStream) -> TokenStream {
    let (config, args_error) = args::parse(kind, args);
    let mut errors = Errors::default();
    if let Some(e) = args_error {
        errors.push(e);
    }

    let parser = |input: ParseStream| Function::parse(kind, input);
    let mut func = match parser.parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            // Not a function at all: leave the item alone, report why.
            errors.push(e);
            let errors = errors.into_inner().map(|e| e.to_compile_error());
            return quote! { #errors #item };
        }
    };

    check_signature(kind, &func.sig, &mut errors);
    if kind.is_test() {
        func.attrs = without_test_attributes(kind, func.attrs, &mut errors);
    }

    match errors.into_inner() {
        None => generate(kind, &config, func),
        Some(e) => {
            let mut out = e.to_compile_error();
            out.extend(fallback(kind, func));
            out
        }
    }
}

/// Everything about the signature that the expansion cannot honour.
fn check_signature(kind: Kind, sig: &Signature, errors: &mut Errors) {
    let attr = kind.attr_name();
    if let Some(t) = &sig.constness {
        errors.push(syn::Error::new(
            t.span,
            format!("`{attr}` cannot be used on a `const fn`"),
        ));
    }
    if let Some(t) = &sig.unsafety {
        errors.push(syn::Error::new(
            t.span,
            format!("`{attr}` cannot be used on an `unsafe fn`"),
        ));
    }
    if let Some(abi) = &sig.abi {
        errors.push(syn::Error::new_spanned(
            abi,
            format!("`{attr}` cannot be used on an `extern` function"),
        ));
    }
    if sig.asyncness.is_none() {
        errors.push(syn::Error::new(
            sig.fn_token.span,
            "the `async` keyword is missing from the function declaration",
        ));
    }
    if let Some(v) = &sig.variadic {
        errors.push(syn::Error::new_spanned(
            v,
            format!("`{attr}` functions cannot be variadic"),
        ));
    }
    // A function other than `main` may take parameters and be generic under
    // `#[runtime::main]`, as under tokio's: the expansion passes them on. `main` itself
    // and a test cannot (the program's entry point and the test harness call them with
    // nothing), so that is reported here rather than by rustc after the expansion.
    let (params_msg, generic_msg) = match kind {
        Kind::Main(_) if sig.ident != "main" => return,
        Kind::Main(_) => (
            "the main function cannot accept arguments".to_string(),
            "the main function cannot be generic".to_string(),
        ),
        Kind::Test(_) => (
            format!("`{attr}` functions cannot take parameters"),
            format!("`{attr}` functions cannot be generic"),
        ),
    };
    if !sig.generics.params.is_empty() {
        errors.push(syn::Error::new_spanned(&sig.generics, generic_msg));
    } else if let Some(w) = &sig.generics.where_clause {
        errors.push(syn::Error::new_spanned(w, generic_msg));
    }
    if !sig.inputs.is_empty() {
        errors.push(syn::Error::new_spanned(&sig.inputs, params_msg));
    }
}

/// The parameters of the outer function and what it passes to the nested `async fn`:
/// each parameter becomes a fresh, hygienic `__runtime_argN` of the same type outside
/// (the user's pattern, `mut` or destructuring, stays on the nested function's side),
/// and the call passes them in order. The turbofish names the type and const
/// parameters (lifetimes are inferred), unless a parameter is an `impl Trait`, which
/// forbids explicit arguments (they are then inferred from the arguments).
fn forwarded_params(sig: &Signature) -> (Vec<TokenStream>, Vec<Ident>, TokenStream) {
    let mut outer = Vec::new();
    let mut names = Vec::new();
    for (i, arg) in sig.inputs.iter().enumerate() {
        if let FnArg::Typed(pat) = arg {
            let name = Ident::new(&format!("__runtime_arg{i}"), Span::mixed_site());
            let ty = &pat.ty;
            outer.push(quote!(#name: #ty));
            names.push(name);
        }
    }
    let explicit: Vec<TokenStream> = sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            GenericParam::Const(c) => Some(c.ident.to_token_stream()),
            GenericParam::Lifetime(_) => None,
        })
        .collect();
    let has_impl_arg = sig.inputs.iter().any(|arg| match arg {
        FnArg::Typed(pat) => mentions_impl(pat.ty.to_token_stream()),
        FnArg::Receiver(_) => false,
    });
    let turbofish = if explicit.is_empty() || has_impl_arg {
        TokenStream::new()
    } else {
        quote!(::<#(#explicit),*>)
    };
    (outer, names, turbofish)
}

/// Drops (and reports) every attribute that would register the function as a test
/// a second time: `#[test]`, `#[core::prelude::v1::test]`, `#[tokio::test]`, ...
fn without_test_attributes(
    kind: Kind,
    attrs: Vec<Attribute>,
    errors: &mut Errors,
) -> Vec<Attribute> {
    attrs
        .into_iter()
        .filter(|attr| {
            let is_test = attr
                .path()
                .segments
                .last()
                .is_some_and(|seg| seg.ident == "test");
            if is_test {
                let msg = format!(
                    "second test attribute is supplied: `{}` already marks the function as \
                     a test; remove this attribute",
                    kind.attr_name()
                );
                errors.push(syn::Error::new_spanned(attr, msg));
            }
            !is_test
        })
        .collect()
}

/// The name of the nested `async fn` holding the user's body.
fn inner_ident() -> Ident {
    Ident::new("__runtime_body", Span::mixed_site())
}

/// `#[::core::prelude::v1::test]` for tests, nothing for `main`.
fn test_marker(kind: Kind) -> TokenStream {
    match kind {
        Kind::Main(_) => TokenStream::new(),
        Kind::Test(_) => quote! { #[::core::prelude::v1::test] },
    }
}

/// The successful expansion.
fn generate(kind: Kind, config: &Config, func: Function) -> TokenStream {
    let Function {
        attrs,
        vis,
        sig,
        body,
    } = func;
    let marker = test_marker(kind);
    let fn_token = sig.fn_token;
    let ident = &sig.ident;
    let output = &sig.output;
    let inner = inner_ident();
    let rt = Ident::new("rt", Span::mixed_site());
    let fut = Ident::new("body", Span::mixed_site());

    let krate = &config.crate_path;
    let new = match config.flavor {
        Flavor::MultiThread => quote!(new_multi_thread),
        Flavor::CurrentThread | Flavor::Local => quote!(new_current_thread),
    };
    let build = match config.flavor {
        Flavor::Local => quote!(build_local(#krate::LocalOptions::default())),
        _ => quote!(build()),
    };
    // The user's literal itself (suffix and span included), so tools that read the
    // source text behind a span see what they expect.
    let threads = config
        .worker_threads
        .as_ref()
        .map(|lit| quote!(.worker_threads(#lit)));
    let unhandled = config
        .unhandled_panic
        .as_ref()
        .map(|v| quote!(.unhandled_panic(#krate::UnhandledPanic::#v)));
    let paused = config
        .start_paused
        .as_ref()
        .map(|lit| quote!(.start_paused(#lit)));
    let name = config.name.as_ref().map(|lit| quote!(.name(#lit)));
    // `fail_on_stall`: a recorder whose callback the builder gets, and which runs the body.
    let stalls = Ident::new("stalls", Span::mixed_site());
    let threshold = config
        .fail_on_stall
        .map(|ns| quote!(::core::time::Duration::from_nanos(#ns)));
    let on_stall = threshold
        .as_ref()
        .map(|t| quote!(.on_stall(#t, #stalls.callback())));
    let make_stalls = threshold
        .as_ref()
        .map(|_| quote!(let #stalls = #krate::__FailOnStall::default();));
    let (generics, where_clause) = (&sig.generics, &sig.generics.where_clause);
    let output_ty = match output {
        ReturnType::Default => quote!(()),
        ReturnType::Type(_, ty) => ty.to_token_stream(),
    };
    // A method taking `self`: a nested `async fn` could neither take the receiver nor
    // name `Self`, so the body becomes an `async` block in the method itself (as with
    // tokio's), which uses `self` and the parameters where they are. The block's output
    // is given up front (see `typed_body`) so that `return` and `?` infer as in the
    // nested function.
    let has_receiver = matches!(sig.inputs.first(), Some(FnArg::Receiver(_)));
    let (outer_params, body_item, call) = if has_receiver {
        let params: Vec<TokenStream> = sig.inputs.iter().map(|a| a.to_token_stream()).collect();
        (params, TokenStream::new(), typed_body(&output_ty, &body))
    } else {
        let (outer_params, arg_names, turbofish) = forwarded_params(&sig);
        let inner_params = &sig.inputs;
        let item = quote! {
            async fn #inner #generics (#inner_params) #output #where_clause #body
        };
        (
            outer_params,
            item,
            quote!(#inner #turbofish (#(#arg_names),*)),
        )
    };

    // Tests: block on a `Pin<&mut dyn Future>` so every test with the same output
    // type shares one instantiation of `block_on` (compile time of big suites).
    // Not possible when the output type is an `impl Trait`.
    let shutdown = config
        .shutdown_timeout
        .map(|ns| quote!(::core::time::Duration::from_nanos(#ns)));
    let block_on = if let Some(t) = &threshold {
        // The body runs as a task, so that the monitor watches its polls; the recorder
        // shuts the runtime down (with `shutdown_timeout` when given) before it checks.
        let timeout = match &shutdown {
            Some(d) => quote!(::core::option::Option::Some(#d)),
            None => quote!(::core::option::Option::None),
        };
        quote! { #stalls.run(#rt, #t, #timeout, #call) }
    } else if kind.is_test() && !mentions_impl(output_ty.clone()) {
        quote! {
            let #fut = ::core::pin::pin!(#call);
            let #fut: ::core::pin::Pin<
                &mut dyn ::core::future::Future<Output = #output_ty>,
            > = #fut;
            #rt.block_on(#fut)
        }
    } else {
        quote! { #rt.block_on(#call) }
    };

    // `shutdown_timeout`: the runtime is shut down with it once the body returned.
    let out = Ident::new("out", Span::mixed_site());
    let finish = match (&shutdown, &threshold) {
        (Some(d), None) => quote! {
            let #out = { #block_on };
            #rt.shutdown_timeout(#d);
            #out
        },
        _ => block_on.clone(),
    };

    if let Some(seeds) = config.seeds {
        // The body runs once per seed, each on a fresh deterministic runtime, under the
        // runner that pins `RUNTIME_SEED`, prints the reproduction and runs the
        // determinism checker (runtime's `sim::test`). Without runtime's `deterministic`
        // feature the macro below is a `compile_error!` that says how to turn it on.
        let test_rt = Ident::new("rt", Span::mixed_site());
        let seed = Ident::new("seed", Span::mixed_site());
        return quote! {
            // Outside the `#[test]` item, so that a missing feature is reported in any build.
            const _: () = #krate::__deterministic_feature!();

            #marker
            #(#attrs)*
            #vis #fn_token #ident #generics (#(#outer_params),*) #output #where_clause {
                #body_item

                #krate::__deterministic_test!(
                    ::core::env!("CARGO_PKG_NAME"),
                    ::core::module_path!(),
                    ::core::stringify!(#ident),
                    #seeds,
                    |#seed: u64| {
                        #[allow(clippy::expect_used)]
                        let #test_rt = #krate::Builder::#new()
                            .enable_all()
                            #threads
                            #unhandled
                            #name
                            .deterministic(#seed)
                            .#build
                            .expect("failed to build the runtime");
                        #test_rt
                    },
                    |#rt: &#krate::runtime::Runtime| -> #output_ty { #block_on }
                )
            }
        };
    }

    quote! {
        #marker
        #(#attrs)*
        #vis #fn_token #ident #generics (#(#outer_params),*) #output #where_clause {
            #body_item

            #make_stalls
            #[allow(clippy::expect_used)]
            let #rt = #krate::Builder::#new()
                .enable_all()
                #threads
                #paused
                #unhandled
                #name
                #on_stall
                .#build
                .expect("failed to build the runtime");
            #finish
        }
    }
}

/// A method's body as an `async` block whose output type is the method's return type,
/// through an identity function bounding it by `Future<Output = T>` (rustc takes a block's
/// output from such a bound, so `return Err(e.into())` and `Ok(Vec::new())` infer). An
/// `impl Trait` return type cannot be named there; the block's output is then inferred.
fn typed_body(output_ty: &TokenStream, body: &Group) -> TokenStream {
    if mentions_impl(output_ty.clone()) {
        return quote!(async #body);
    }
    let typed = Ident::new("__runtime_typed", Span::mixed_site());
    quote! {{
        fn #typed<T, F: ::core::future::Future<Output = T>>(f: F) -> F {
            f
        }
        #typed::<#output_ty, _>(async #body)
    }}
}

/// What is emitted next to the errors: the function without its parameters or
/// return type, the body kept (type-checked, never called) in a nested `async fn`.
fn fallback(kind: Kind, func: Function) -> TokenStream {
    let Function {
        attrs,
        vis,
        sig,
        body,
    } = func;
    let marker = test_marker(kind);
    let fn_token = sig.fn_token;
    let ident = &sig.ident;
    let inner = inner_ident();
    let unsafety = &sig.unsafety;
    let (params, where_clause) = (&sig.generics, &sig.generics.where_clause);
    // A receiver would be one more error of its own outside an `impl`.
    let inputs = sig
        .inputs
        .iter()
        .filter(|arg| matches!(arg, FnArg::Typed(_)));
    let output = &sig.output;
    quote! {
        #marker
        #(#attrs)*
        #vis #fn_token #ident() {
            #[allow(dead_code)]
            async #unsafety fn #inner #params (#(#inputs),*) #output #where_clause #body
        }
    }
}

/// Whether the type's tokens contain the `impl` keyword anywhere.
fn mentions_impl(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|tt| match tt {
        TokenTree::Ident(i) => i == "impl",
        TokenTree::Group(g) => mentions_impl(g.stream()),
        _ => false,
    })
}

//! `#[guard_panics]` for the PyO3 bindings: every function of a `#[pymethods]` block (or
//! one `#[pyfunction]`) runs inside `crate::error::guard`, which turns a Rust panic into
//! `guomi.exceptions.InternalError` (a `GuomiError`, so `except Exception` catches it)
//! instead of PyO3's `PanicException` (a `BaseException`).
//!
//! A panic is still a bug: the core returns typed errors for every bad input, and the
//! bad-input sweep (`tests/test_sweep.py`) fails on any `InternalError`. This is the last
//! line of defence, so that one missed case cannot take down a worker that catches
//! `Exception`.
//!
//! Rewriting, for `fn f(args) -> T { body }`:
//! * `T` is `PyResult<U>` (or `Result<U, PyErr>`): the body becomes
//!   `crate::error::guard(move || -> T { body })`;
//! * any other `T` (or none): the return type becomes `PyResult<T>` and the body
//!   `crate::error::guard(move || Ok((move || -> T { body })()))`, so `return` inside the
//!   body keeps its meaning.
//!
//! Place it before the PyO3 attribute: `#[guard_panics] #[pymethods] impl X { ... }` or
//! `#[guard_panics] #[pyfunction] fn f(...)`.
#![forbid(unsafe_code)]

use proc_macro::TokenStream;
use quote::quote;
use syn::{parse_macro_input, parse_quote, ImplItem, Item, ReturnType, Signature, Type};

/// See the crate documentation.
#[proc_macro_attribute]
pub fn guard_panics(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return syn::Error::new(
            proc_macro2::Span::call_site(),
            "guard_panics takes no arguments",
        )
        .to_compile_error()
        .into();
    }
    let mut item = parse_macro_input!(item as Item);
    match &mut item {
        Item::Fn(f) => wrap(&mut f.sig, &mut f.block),
        Item::Impl(imp) => {
            for it in &mut imp.items {
                if let ImplItem::Fn(f) = it {
                    wrap(&mut f.sig, &mut f.block);
                }
            }
        }
        other => {
            return syn::Error::new_spanned(other, "guard_panics applies to a fn or an impl block")
                .to_compile_error()
                .into()
        }
    }
    quote!(#item).into()
}

/// Whether `ty` is syntactically `PyResult<..>` or `Result<.., ..>`.
fn is_result(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "PyResult" || s.ident == "Result"),
        _ => false,
    }
}

fn wrap(sig: &mut Signature, block: &mut syn::Block) {
    let body = &*block;
    let (new_ret, new_body): (ReturnType, syn::Block) = match &sig.output {
        ReturnType::Type(_, ty) if is_result(ty) => (
            sig.output.clone(),
            parse_quote!({ crate::error::guard(move || -> #ty #body) }),
        ),
        ReturnType::Type(_, ty) => (
            parse_quote!(-> ::pyo3::PyResult<#ty>),
            parse_quote!({ crate::error::guard(move || Ok((move || -> #ty #body)())) }),
        ),
        ReturnType::Default => (
            parse_quote!(-> ::pyo3::PyResult<()>),
            parse_quote!({ crate::error::guard(move || Ok((move || #body)())) }),
        ),
    };
    sig.output = new_ret;
    *block = new_body;
}

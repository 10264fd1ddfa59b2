//! A read's HTTP request, signed with SigV4 as the SDK signs DynamoDB's requests (by the
//! same `aws-sigv4` crate, with its default settings: headers signed, the payload hashed).

use std::time::SystemTime;

use aws_sigv4::http_request::{sign, SignableBody, SignableRequest, SigningSettings};
use aws_sigv4::sign::v4;
use aws_smithy_runtime_api::client::identity::Identity;
use aws_smithy_runtime_api::client::orchestrator::HttpRequest;
use aws_smithy_types::body::SdkBody;

use super::{Lost, Route};

/// What faceteer's requests say they are (not signed, as the SDK's own user agent is not).
const USER_AGENT: &str = concat!("faceteer-rs/", env!("CARGO_PKG_VERSION"));

/// The request for `operation` with `body`, signed with `identity` at `now`.
pub(super) fn request(
    route: &Route,
    operation: &str,
    body: &bytes::Bytes,
    identity: &Identity,
    now: SystemTime,
) -> Result<HttpRequest, Lost> {
    if identity
        .data::<aws_sdk_dynamodb::config::Credentials>()
        .is_none()
    {
        return Err(Lost::Unsigned(
            "the identity holds no AWS credentials".into(),
        ));
    }
    let target = format!("DynamoDB_20120810.{operation}");
    let length = body.len().to_string();
    let extra = crate::wire::sent::request_headers();
    let mut headers: Vec<(&str, &str)> = vec![
        ("content-type", "application/x-amz-json-1.0"),
        ("content-length", &length),
        ("host", &route.host),
        ("x-amz-target", &target),
    ];
    // Each name once, its last value: the SDK's path inserts hooks' headers one by one,
    // replacing, and a name sent once must be signed once.
    for (name, value) in extra.iter().flat_map(|e| e.iter()) {
        match headers
            .iter_mut()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            Some(slot) => slot.1 = value.as_str(),
            None => headers.push((name.as_str(), value.as_str())),
        }
    }
    let unsigned = |e: &dyn std::fmt::Display| Lost::Unsigned(e.to_string().into());
    let params = v4::SigningParams::builder()
        .identity(identity)
        .region(&route.region)
        .name(&route.service)
        .time(now)
        .settings(SigningSettings::default())
        .build()
        .map_err(|e| unsigned(&e))?
        .into();
    let signable = SignableRequest::new(
        "POST",
        route.endpoint.as_str(),
        headers.iter().copied(),
        SignableBody::Bytes(body),
    )
    .map_err(|e| unsigned(&e))?;
    let (instructions, _) = sign(signable, &params)
        .map_err(|e| unsigned(&e))?
        .into_parts();
    let mut request = HttpRequest::new(SdkBody::from(body.clone()));
    request.set_method("POST").map_err(|e| unsigned(&e))?;
    request
        .set_uri(route.endpoint.as_str())
        .map_err(|e| unsigned(&e))?;
    let out = request.headers_mut();
    for (name, value) in headers {
        out.insert(name.to_owned(), value.to_owned());
    }
    let (signed, _) = instructions.into_parts();
    for header in signed {
        out.insert(header.name(), header.value().to_owned());
    }
    out.insert("user-agent", USER_AGENT);
    Ok(request)
}

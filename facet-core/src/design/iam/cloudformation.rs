//! The design's policies attached to its CloudFormation template.

use serde_json::{json, Map, Value};

use super::document::MAX_POLICY_CHARS;
use super::document::{policy_chars, Resource};
use super::error::IamError;
use super::json;
use super::options::IamOptions;
use super::plan::plan;
use crate::design::model::TableDesign;

/// CloudFormation's longest `AWS::IAM::ManagedPolicy` description.
const MAX_DESCRIPTION: usize = 1000;

/// The [`cloudformation`](crate::design::cloudformation) template of `design` with its
/// policies ([`iam_policies`](super::iam_policies)) as `AWS::IAM::ManagedPolicy`
/// resources, the table's unchanged. For each policy, by its name `P`:
///
/// * resource `P`: its description and document, the ARNs referring to the table resource
///   (`{"Fn::GetAtt": [T, "Arn"]}`, `{"Fn::Sub": "${T.Arn}/index/GSI1"}`,
///   `{"Fn::Sub": "${T.Arn}/stream/*"}`; conditions are plain strings, so
///   `${aws:PrincipalTag/…}` stays as it is), no `ManagedPolicyName` (CloudFormation names
///   it after the stack);
/// * parameter `PRoles` (`CommaDelimitedList`, empty by default): the names of the roles
///   to attach it to, set as its `Roles` unless empty (condition `PHasRoles`);
/// * output `PArn`: its ARN.
///
/// Fails as [`iam_policies`](super::iam_policies) does.
pub fn cloudformation_with_policies(
    design: &TableDesign<'_>,
    options: &IamOptions<'_>,
) -> Result<String, IamError> {
    let planned = plan(design, options)?;
    let mut template: Value =
        serde_json::from_str(&crate::design::cloudformation::cloudformation(design))
            .expect("the table's template is JSON");
    let table = crate::design::cloudformation::logical_id(design.table);
    let arn = |r: &Resource| match r {
        Resource::Table => json!({ "Fn::GetAtt": [table, "Arn"] }),
        Resource::Key(arn) => json!(arn),
        other => json!({ "Fn::Sub": format!("${{{table}.Arn}}{}", other.suffix()) }),
    };
    let (mut parameters, mut conditions, mut resources, mut outputs) =
        (Map::new(), Map::new(), Map::new(), Map::new());
    for p in planned {
        let concrete = p
            .document
            .render(&|r| r.arn(design.table, &options.target).into());
        let chars = policy_chars(&concrete);
        if chars > MAX_POLICY_CHARS {
            return Err(IamError::TooLarge {
                policy: p.name,
                chars,
                limit: MAX_POLICY_CHARS,
            });
        }
        let name = p.name;
        let (roles, has_roles) = (format!("{name}Roles"), format!("{name}HasRoles"));
        parameters.insert(
            roles.clone(),
            json!({
                "Type": "CommaDelimitedList",
                "Default": "",
                "Description": format!("Names of the IAM roles to attach policy {name} to (empty: none)"),
            }),
        );
        conditions.insert(
            has_roles.clone(),
            json!({ "Fn::Not": [{ "Fn::Equals": [{ "Fn::Join": ["", { "Ref": roles }] }, ""] }] }),
        );
        let description: String = p.description.chars().take(MAX_DESCRIPTION).collect();
        resources.insert(
            name.clone(),
            json!({
                "Type": "AWS::IAM::ManagedPolicy",
                "Properties": {
                    "Description": description,
                    "PolicyDocument": p.document.render(&arn),
                    "Roles": { "Fn::If": [has_roles, { "Ref": roles }, { "Ref": "AWS::NoValue" }] },
                },
            }),
        );
        outputs.insert(
            format!("{name}Arn"),
            json!({ "Description": format!("The ARN of policy {name}"), "Value": { "Ref": name } }),
        );
    }
    let object = template.as_object_mut().expect("a template is an object");
    object.insert("Parameters".into(), parameters.into());
    object.insert("Conditions".into(), conditions.into());
    object
        .get_mut("Resources")
        .and_then(Value::as_object_mut)
        .expect("a template has resources")
        .extend(resources);
    object.insert("Outputs".into(), outputs.into());
    Ok(json::pretty(&template))
}

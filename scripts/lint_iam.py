#!/usr/bin/env python3
"""Lint IAM policy documents with parliament.

Usage: lint_iam.py DIR

Runs parliament.analyze_policy_string on every *.json file of DIR (a policy document
each, with concrete ARNs: parliament refuses CloudFormation intrinsics) and exits 1
listing every finding, except UNKNOWN_ACTION for dynamodb:SearchVectors, which
parliament 1.6.4 does not know. Exits 2 when DIR holds no policy. Prints the number of
documents and findings.
"""

import json
import pathlib
import sys

import parliament

# Actions parliament's bundled IAM definitions lack, that AWS has.
KNOWN_TO_AWS = {"dynamodb:SearchVectors"}

# Permissions-management actions a table needs: DynamoDB creates a grant on a table's
# customer-managed KMS key in the caller's name (the statement allows it only for AWS
# resources, `kms:GrantIsForAWSResource`, on that one key).
NEEDED_GRANTS = {"kms:creategrant"}


def allowed(finding):
    """Whether a finding is one of parliament's gaps rather than a fault of the policy."""
    location = finding.location or {}
    if finding.issue == "UNKNOWN_ACTION":
        return location.get("string") in KNOWN_TO_AWS
    if finding.issue == "PERMISSIONS_MANAGEMENT_ACTIONS":
        actions = {a.lower() for a in location.get("actions", [])}
        return bool(actions) and actions <= NEEDED_GRANTS
    return False


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    files = sorted(pathlib.Path(argv[1]).glob("*.json"))
    if not files:
        print(f"lint_iam: no *.json policy in {argv[1]}", file=sys.stderr)
        return 2
    faults = 0
    ignored = 0
    for path in files:
        policy = parliament.analyze_policy_string(
            path.read_text(), filepath=str(path), include_community_auditors=True
        )
        for finding in policy.findings:
            if allowed(finding):
                ignored += 1
                continue
            faults += 1
            detail = json.dumps(finding.detail, default=str)
            print(f"{path.name}: {finding.issue}: {detail} at {finding.location}")
    print(
        f"lint_iam: {len(files)} policies, {faults} findings"
        f" ({ignored} known gaps ignored: dynamodb:SearchVectors, kms:CreateGrant)"
    )
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

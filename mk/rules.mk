## integration-rules: the alert rules (deploy/rules, docs/alerts.md) with
## Debian's promtool: `promtool check rules` on the plain file and on the
## Helm chart's PrometheusRule (its spec extracted by hack/promrule, since
## promtool refuses the custom resource), then `promtool test rules`: every
## alert firing for one cluster and not for another.
INTEGRATION += integration-rules
RULES_OUT ?= $(CURDIR)/out/rules

.PHONY: integration-rules
integration-rules:
	hack/prometheus/install.sh
	hack/tools/build.sh helm
	promtool check rules deploy/rules/gpuwise.rules.yaml
	@mkdir -p $(RULES_OUT)
	. hack/tools/env.sh && "$$TOOLS_BIN/helm" template gpuwise deploy/helm/gpuwise --namespace gpuwise \
	  --set prometheusRule.enabled=true --show-only templates/prometheusrule.yaml | \
	  $(GO) run ./hack/promrule > $(RULES_OUT)/prometheusrule.rules.yaml
	promtool check rules $(RULES_OUT)/prometheusrule.rules.yaml
	cd deploy/rules && promtool test rules tests/gpuwise.test.yaml

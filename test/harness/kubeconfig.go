package harness

import (
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes a kubeconfig with one cluster, one token user and one current context.
func writeKubeconfig(path, name, server string, caData []byte, user, token, namespace string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caData}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	ctxName := name
	if user != AdminUser {
		ctxName = name + "-" + user
	}
	cfg.Contexts[ctxName] = &clientcmdapi.Context{Cluster: name, AuthInfo: user, Namespace: namespace}
	cfg.CurrentContext = ctxName
	return clientcmd.WriteToFile(*cfg, path)
}

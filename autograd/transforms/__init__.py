"""Function transforms: grad, value_and_grad, jvp, vjp, jacobian, hessian, vmap, check_grads."""
